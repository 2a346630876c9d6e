package io.reactiveinformer.test.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * The fields a JSON body names twice in one object ({@code {"spec":{"size":1,"size":2}}}), which a
 * tree keeps once (the last), and which the real server's strict decoder reports as
 * {@code duplicate field "spec.size"} before the unknown fields, in the order it meets them. Stateless.
 */
final class DuplicateFields {

    private DuplicateFields() {
    }

    /** One open object or array: its path, the names seen (an object's), the next index (an array's). */
    private static final class Frame {
        final String path;
        final boolean array;
        final Set<String> names = new HashSet<>();
        int index;

        Frame(String path, boolean array) {
            this.path = path;
            this.array = array;
        }
    }

    /** The path of every repeated field of {@code json}, as the real server names it; empty for a body that is not JSON. */
    static List<String> of(JsonMapper mapper, byte[] json) {
        List<String> found = new ArrayList<>();
        Deque<Frame> open = new ArrayDeque<>();
        String next = "";
        try (JsonParser parser = mapper.createParser(json)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                switch (token) {
                    case PROPERTY_NAME -> {
                        Frame object = open.peek();
                        String name = parser.currentName();
                        next = object.path.isEmpty() ? name : object.path + "." + name;
                        if (!object.names.add(name)) {
                            found.add(next);
                        }
                    }
                    case START_OBJECT, START_ARRAY -> open.push(new Frame(valuePath(open, next),
                            token == JsonToken.START_ARRAY));
                    case END_OBJECT, END_ARRAY -> open.pop();
                    default -> valuePath(open, next);
                }
            }
        } catch (RuntimeException notJson) {
            return List.of();
        }
        return found;
    }

    /** The path of the value starting now: an array's next item, or the property just named. */
    private static String valuePath(Deque<Frame> open, String named) {
        Frame parent = open.peek();
        if (parent == null) {
            return "";
        }
        return parent.array ? parent.path + "[" + parent.index++ + "]" : named;
    }
}

package io.reactiveinformer.informer;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * A Jackson 3 module that writes a {@link Notification} as one JSON object, for streams to browsers
 * and other services (register it beside {@link io.reactiveinformer.codec.KubernetesModule}, which
 * writes the objects):
 *
 * <pre>
 * {"type":"ADDED",   "key":"ns/name", "object":{...},                   "flags":{"inInitialList":true}}
 * {"type":"UPDATED", "key":"ns/name", "object":{...}, "oldObject":{...}, "flags":{"resync":false}}
 * {"type":"DELETED", "key":"ns/name", "object":{...},                   "flags":{"finalStateUnknown":false}}
 * {"type":"SYNCED",  "key":""}
 * </pre>
 *
 * {@code object} is the object's state after the change (for {@code DELETED} its last known state),
 * {@code oldObject} the state before an update. Write-only: notifications are the informer's to
 * make. Stateless and thread-safe.
 */
public final class NotificationModule extends SimpleModule {

    private static final long serialVersionUID = 1L;

    public NotificationModule() {
        super("reactive-informer-notifications");
        addSerializer(new NotificationSerializer());
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class NotificationSerializer extends StdSerializer<Notification> {

        NotificationSerializer() {
            super(Notification.class);
        }

        @Override
        public void serialize(Notification value, JsonGenerator gen, SerializationContext ctxt) {
            gen.writeStartObject();
            if (value instanceof Notification.Added<?> added) {
                head(gen, "ADDED", added.key());
                gen.writePOJOProperty("object", added.object());
                flag(gen, "inInitialList", added.inInitialList());
            } else if (value instanceof Notification.Updated<?> updated) {
                head(gen, "UPDATED", updated.key());
                gen.writePOJOProperty("object", updated.newObject());
                gen.writePOJOProperty("oldObject", updated.oldObject());
                flag(gen, "resync", updated.isResync());
            } else if (value instanceof Notification.Deleted<?> deleted) {
                head(gen, "DELETED", deleted.key());
                gen.writePOJOProperty("object", deleted.lastState());
                flag(gen, "finalStateUnknown", deleted.finalStateUnknown());
            } else {
                head(gen, "SYNCED", value.key());
            }
            gen.writeEndObject();
        }

        private static void head(JsonGenerator gen, String type, String key) {
            gen.writeStringProperty("type", type);
            gen.writeStringProperty("key", key);
        }

        private static void flag(JsonGenerator gen, String name, boolean value) {
            gen.writeObjectPropertyStart("flags");
            gen.writeBooleanProperty(name, value);
            gen.writeEndObject();
        }
    }
}

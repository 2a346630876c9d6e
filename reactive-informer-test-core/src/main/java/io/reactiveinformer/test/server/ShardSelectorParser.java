package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ShardRange;
import io.reactiveinformer.api.ShardSelector;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code shardSelector} parameter as kube-apiserver 1.36 reads it with the {@code ShardedListAndWatch} gate
 * on ({@code k8s.io/apiserver/pkg/sharding.Parse}): {@code shardRange(<field>, '<start>', '<end>')} calls joined
 * with {@code ||}, one field for all, bounds {@code 0x} and 16 lowercase hex digits (or {@code 0x10000000000000000}),
 * start below end. The server parses the expression as CEL; this reads the same subset by hand (parenthesised
 * groups and CEL escapes in the literals, which no valid selector needs, are syntax errors here).
 *
 * <p>A bad selector fails the request as the real server fails it: the registry returns a plain error,
 * {@code "invalid shard selector: ..."}, which the API server answers with 500 and no reason (it is not a
 * {@code StatusError}), on LIST and WATCH alike.
 */
final class ShardSelectorParser {

    private static final String TOP = "0x10000000000000000";

    private final String text;
    private int at;

    private ShardSelectorParser(String text) {
        this.text = text;
    }

    /** The selector {@code text} spells, or an {@link ApiError} as the real server answers. */
    static ShardSelector parse(String text) {
        String expr = text.strip();
        if (expr.isEmpty()) {
            throw invalid("empty shard selector is not allowed; omit the parameter for unfiltered lists");
        }
        return new ShardSelectorParser(expr).selector();
    }

    /** Whether the server returns {@code object} under {@code selector}: the same hash as the client's. */
    static boolean matches(ShardSelector selector, ObjectNode object) {
        String field = selector.key() == ShardSelector.Key.UID ? "uid" : "namespace";
        long hash = ShardSelector.hash(object.path("metadata").path(field).asString(""));
        return selector.ranges().stream().anyMatch(r -> r.contains(hash));
    }

    private ShardSelector selector() {
        List<String> keys = new ArrayList<>();
        List<ShardRange> ranges = new ArrayList<>();
        do {
            expectWord("shardRange");
            expect('(');
            String key = path();
            if (!key.equals(ShardSelector.Key.UID.path()) && !key.equals(ShardSelector.Key.NAMESPACE.path())) {
                throw invalid("unsupported field path \"" + key + "\"; supported: object.metadata.uid, "
                        + "object.metadata.namespace");
            }
            expect(',');
            String start = hex("hexStart");
            expect(',');
            String end = hex("hexEnd");
            expect(')');
            if (!hexLess(start, end)) {
                throw invalid("shard range start " + start + " must be less than end " + end);
            }
            if (!keys.isEmpty() && !keys.get(0).equals(key)) {
                throw invalid("all shard ranges must use the same field, got \"" + keys.get(0) + "\" and \"" + key + "\"");
            }
            keys.add(key);
            ranges.add(ShardRange.of(start, end));
        } while (skipOr());
        skipSpace();
        if (at < text.length()) {
            throw syntax("unexpected '" + text.charAt(at) + "'");
        }
        ShardSelector.Key key = keys.get(0).equals(ShardSelector.Key.UID.path())
                ? ShardSelector.Key.UID : ShardSelector.Key.NAMESPACE;
        return ShardSelector.of(key, ranges);
    }

    private boolean skipOr() {
        skipSpace();
        if (text.startsWith("||", at)) {
            at += 2;
            return true;
        }
        return false;
    }

    private void expectWord(String word) {
        String name = identifier();
        if (!name.equals(word)) {
            skipSpace();
            if (at < text.length() && text.charAt(at) == '(') {
                throw invalid("unsupported function \"" + name + "\"; only shardRange() and || are allowed");
            }
            throw invalid("unexpected expression kind; expected shardRange() call or || operator");
        }
    }

    private String path() {
        StringBuilder path = new StringBuilder(identifier());
        skipSpace();
        while (at < text.length() && text.charAt(at) == '.') {
            at++;
            path.append('.').append(identifier());
            skipSpace();
        }
        return path.toString();
    }

    private String identifier() {
        skipSpace();
        int from = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
            at++;
        }
        if (from == at) {
            throw syntax(at < text.length() ? "unexpected '" + text.charAt(at) + "'" : "unexpected end of input");
        }
        return text.substring(from, at);
    }

    /** A quoted literal checked as {@code extractHexLiteral} checks it. */
    private String hex(String name) {
        skipSpace();
        if (at >= text.length() || (text.charAt(at) != '\'' && text.charAt(at) != '"')) {
            throw invalid(name + " must be a string literal (e.g. '0xff')");
        }
        char quote = text.charAt(at++);
        int close = text.indexOf(quote, at);
        if (close < 0) {
            throw syntax("unterminated string literal");
        }
        String s = text.substring(at, close);
        at = close + 1;
        if (!s.startsWith("0x")) {
            throw invalid(name + " must have '0x' prefix, got \"" + s + "\"");
        }
        String digits = s.substring(2);
        if (digits.isEmpty()) {
            throw invalid(name + ": hex value is required after '0x'");
        }
        if (digits.length() > 17) {
            throw invalid(name + ": hex value too long (" + digits.length() + " chars, max 17): \"" + digits + "\"");
        }
        for (char c : digits.toCharArray()) {
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                throw invalid(name + ": invalid hex character \"" + c + "\" in \"" + s + "\"");
            }
        }
        if (digits.length() == 17 && !s.equals(TOP)) {
            throw invalid(name + ": 17-digit hex value must be '" + TOP + "' (2^64), got \"" + s + "\"");
        }
        if (digits.length() < 16) {
            throw invalid(name + " must be a 0x-prefixed 16-digit hex value, got \"" + s + "\" (did you mean \"0x"
                    + "0".repeat(16 - digits.length()) + digits + "\"?)");
        }
        return s;
    }

    /** The server's {@code HexLess}: normalized bounds compare by length, then as text. */
    private static boolean hexLess(String a, String b) {
        return a.length() != b.length() ? a.length() < b.length() : a.compareTo(b) < 0;
    }

    private void expect(char c) {
        skipSpace();
        if (at >= text.length() || text.charAt(at) != c) {
            throw syntax(at < text.length() ? "unexpected '" + text.charAt(at) + "', expected '" + c + "'"
                    : "unexpected end of input, expected '" + c + "'");
        }
        at++;
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private ApiError syntax(String problem) {
        return invalid("CEL parse error: Syntax error: " + problem + " at column " + (at + 1));
    }

    private static ApiError invalid(String problem) {
        return new ApiError(500, null, "invalid shard selector: " + problem, null, null);
    }
}

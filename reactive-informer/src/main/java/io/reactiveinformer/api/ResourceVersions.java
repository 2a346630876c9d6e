package io.reactiveinformer.api;

/**
 * The one ordering of resourceVersions this library relies on. The API makes them opaque strings that
 * only compare for equality, but kube-apiserver issues etcd's revision as a decimal number, and client-go
 * v0.36 reads them as numbers for the same purpose (its controllers' check that an informer's store has
 * seen the controller's own writes): so do we, and fall back to equality for anything else.
 */
public final class ResourceVersions {

    private ResourceVersions() {
    }

    /**
     * Whether a store at {@code version} has seen the change that produced {@code target}:
     * <ul>
     *   <li>an empty or {@code "0"} target ("any state") is reached by every version;</li>
     *   <li>an empty version (nothing synced yet) reaches no other target;</li>
     *   <li>two unsigned decimal numbers that fit 64 bits compare as numbers ({@code version >= target});</li>
     *   <li>anything else (a server that issues other strings) only when both are equal.</li>
     * </ul>
     */
    public static boolean isAtLeast(String version, String target) {
        if (target == null || target.isEmpty() || target.equals("0")) {
            return true;
        }
        if (version == null || version.isEmpty()) {
            return false;
        }
        long v = parse(version);
        long t = parse(target);
        if (v >= 0 && t >= 0) {
            return v >= t;
        }
        return version.equals(target);
    }

    /** The value of an unsigned decimal below 2^63, or -1 for anything else (larger numbers fall back to equality). */
    private static long parse(String version) {
        if (version.length() > 18) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < version.length(); i++) {
            char c = version.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}

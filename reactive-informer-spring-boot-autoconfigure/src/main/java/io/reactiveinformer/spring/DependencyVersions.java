package io.reactiveinformer.spring;

import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * Fails the start, saying what to change, when the class path holds a Jackson or Reactor older than the library
 * was tested with. The usual cause: Spring Boot's BOM, imported before ours, chose the versions. An older line
 * fails later and obscurely (a missing method deep in a decode), if at all.
 */
final class DependencyVersions {

    /** The oldest lines tested: Jackson 3.1 is Boot 4.1's, 3.2 the library's own; Reactor 3.8 both's. */
    private static final int JACKSON_MAJOR = 3;
    private static final int JACKSON_MINOR = 1;
    private static final int REACTOR_MAJOR = 3;
    private static final int REACTOR_MINOR = 8;

    private static final String FIX = "Import io.reactiveinformer:reactive-informer-bom before Spring Boot's BOM in"
            + " <dependencyManagement>, or, with spring-boot-starter-parent, set the <jackson-bom.version> or"
            + " <reactor-bom.version> property to the version reactive-informer-bom manages.";

    private DependencyVersions() {
    }

    /** The versions on the class path; a jar without a version in its manifest (repackaged) is not checked. */
    static void check() {
        check(tools.jackson.databind.cfg.PackageVersion.VERSION.toString(),
                tools.jackson.core.json.PackageVersion.VERSION.toString(),
                Flux.class.getPackage().getImplementationVersion());
    }

    static void check(String jacksonDatabind, String jacksonCore, String reactorCore) {
        List<String> problems = new ArrayList<>();
        require("tools.jackson.core:jackson-databind", jacksonDatabind, JACKSON_MAJOR, JACKSON_MINOR, problems);
        require("tools.jackson.core:jackson-core", jacksonCore, JACKSON_MAJOR, JACKSON_MINOR, problems);
        int[] databind = parse(jacksonDatabind);
        int[] core = parse(jacksonCore);
        if (databind != null && core != null && core[0] == databind[0] && core[1] < databind[1]) {
            problems.add("tools.jackson.core:jackson-core " + jacksonCore + " is older than jackson-databind "
                    + jacksonDatabind + ", which needs its own minor version of jackson-core or later");
        }
        require("io.projectreactor:reactor-core", reactorCore, REACTOR_MAJOR, REACTOR_MINOR, problems);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("reactive-informer cannot run with the libraries on the class path: "
                    + String.join("; ", problems) + ". " + FIX);
        }
    }

    private static void require(String artifact, String version, int major, int minor, List<String> problems) {
        int[] found = parse(version);
        if (found != null && (found[0] != major || found[1] < minor)) {
            problems.add(artifact + " " + version + " is on the class path; it needs " + major + "." + minor
                    + " or a later " + major + ".x");
        }
    }

    /** Major and minor of "3.2.4", "3.8.7.RELEASE", "3.2.0-rc1"; null when unknown. */
    private static int[] parse(String version) {
        if (version == null) {
            return null;
        }
        String[] parts = version.split("[.-]");
        try {
            return parts.length < 2 ? null : new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (NumberFormatException unknown) {
            return null;
        }
    }
}

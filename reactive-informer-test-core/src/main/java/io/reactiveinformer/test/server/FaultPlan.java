package io.reactiveinformer.test.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * Which requests fail, and how: scripted rules (the next {@code n} matching requests) and seeded
 * random ones. Rules are tried in the order they were added; the first that fires decides. A seeded
 * random rule draws once per matching request, so the same requests in the same order get the same
 * faults. Thread-safe.
 */
public final class FaultPlan {

    private final List<Rule> rules = new ArrayList<>();

    private static final class Rule {
        final Predicate<RequestInfo> when;
        final List<Fault> faults;
        int remaining;
        final SplittableRandom random;
        final double probability;

        Rule(Predicate<RequestInfo> when, List<Fault> faults, int remaining, SplittableRandom random,
             double probability) {
            this.when = when;
            this.faults = faults;
            this.remaining = remaining;
            this.random = random;
            this.probability = probability;
        }
    }

    /** The next request matching {@code when} gets {@code fault}. */
    public FaultPlan once(Predicate<RequestInfo> when, Fault fault) {
        return times(1, when, fault);
    }

    /** The next {@code n} requests matching {@code when} get {@code fault}. */
    public synchronized FaultPlan times(int n, Predicate<RequestInfo> when, Fault fault) {
        rules.add(new Rule(Objects.requireNonNull(when), List.of(fault), n, null, 1));
        return this;
    }

    /** Every request matching {@code when} gets {@code fault}, until {@link #clear()}. */
    public FaultPlan always(Predicate<RequestInfo> when, Fault fault) {
        return times(Integer.MAX_VALUE, when, fault);
    }

    /**
     * Each request matching {@code when} gets, with {@code probability}, one of {@code faults} drawn
     * uniformly; the draws come from {@code seed}.
     */
    public synchronized FaultPlan random(long seed, double probability, Predicate<RequestInfo> when,
                                         List<? extends Fault> faults) {
        if (faults.isEmpty() || probability < 0 || probability > 1) {
            throw new IllegalArgumentException("need faults and a probability in [0, 1]");
        }
        rules.add(new Rule(Objects.requireNonNull(when), List.copyOf(faults), Integer.MAX_VALUE,
                new SplittableRandom(seed), probability));
        return this;
    }

    /** Removes every rule. */
    public synchronized void clear() {
        rules.clear();
    }

    /** The fault for this request, or {@code null}. */
    synchronized Fault next(RequestInfo request) {
        for (Rule rule : rules) {
            if (rule.remaining <= 0 || !rule.when.test(request)) {
                continue;
            }
            if (rule.random != null) {
                double draw = rule.random.nextDouble();
                int pick = rule.random.nextInt(rule.faults.size());
                if (draw >= rule.probability) {
                    continue;
                }
                return rule.faults.get(pick);
            }
            rule.remaining--;
            return rule.faults.get(0);
        }
        return null;
    }
}

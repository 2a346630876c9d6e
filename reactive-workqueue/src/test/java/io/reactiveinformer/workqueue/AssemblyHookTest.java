package io.reactiveinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

/** The queue's own publishers go through Reactor's assembly hooks like every operator. */
class AssemblyHookTest {

    private final List<String> assembled = new ArrayList<>();

    @AfterEach
    void resetHooks() {
        Hooks.resetOnEachOperator("assembly-hook-test");
    }

    @Test
    void getAndProcessAreSeenByOnEachOperator() {
        Hooks.onEachOperator("assembly-hook-test", publisher -> {
            assembled.add(publisher.getClass().getSimpleName());
            return publisher;
        });
        WorkQueue<String> queue = WorkQueue.<String>builder().build();

        queue.get();
        queue.process(1, item -> Mono.empty());

        assertThat(assembled).contains("GetMono", "ProcessMono");
    }
}

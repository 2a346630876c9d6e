package io.reactiveinformer.watch;

import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Gathers every page of one LIST (client-go's {@code tools/pager}). Pages after the first carry only the
 * continue token: the server rejects a resourceVersion together with a token. When a continue token
 * expires (410) mid-way, the pager asks once more for the whole list, unpaginated, at the original
 * resourceVersion; any other error, or a failure of that last request, ends the list with the error.
 * Every request interns its items with the interner it is given (see {@link Reflector.Builder#interner}).
 */
final class ListPager<T> {

    private static final Logger log = LoggerFactory.getLogger(Reflector.class);

    private final String name;
    private final ListerWatcher<T> listerWatcher;

    ListPager(String name, ListerWatcher<T> listerWatcher) {
        this.name = name;
        this.listerWatcher = listerWatcher;
    }

    /**
     * @param base            selectors only
     * @param resourceVersion the version to list at
     * @param limit           the page size, or {@code null} for one unpaginated request
     * @param interner        what each listed object is passed through
     */
    Mono<Gathered<T>> list(ListOptions base, String resourceVersion, Integer limit, UnaryOperator<T> interner) {
        return Mono.defer(() -> {
            Gathered<T> gathered = new Gathered<>();
            return listerWatcher.list(base.withResourceVersion(resourceVersion, null).withLimit(limit), interner)
                    .expand(page -> page.hasMore()
                            ? listerWatcher.list(base.withLimit(limit).withContinue(page.continueToken()), interner)
                            : Mono.empty())
                    .doOnNext(gathered::add)
                    .then(Mono.fromSupplier(() -> gathered))
                    .onErrorResume(e -> e instanceof KubernetesApiException.Gone && gathered.pages > 0, e -> {
                        log.info("{}: continue token expired after {} pages ({}); listing again unpaginated at "
                                + "resourceVersion \"{}\"", name, gathered.pages, e.getMessage(), resourceVersion);
                        return listerWatcher.list(base.withResourceVersion(resourceVersion, null), interner)
                                .map(page -> new Gathered<T>().add(page).markPaginated());
                    });
        });
    }

    /**
     * The items of all pages so far, and the first page's resourceVersion (the one they are consistent with).
     * A single page's items are kept as they are (immutable already, so {@link ReflectorEvent.Listed} takes them
     * without a copy); from the second page on they are gathered into one list, and each page is dropped once
     * added. So an unpaginated relist of N objects holds one N-sized list until the FIFO takes it, not three.
     */
    static final class Gathered<T> {
        List<T> items = List.of();
        String resourceVersion;
        /** The shard selector every page echoed; {@code null} once a page echoed none (or another one). */
        String shardSelector;
        int pages;
        boolean paginated;

        Gathered<T> add(ObjectList<T> page) {
            if (pages == 0) {
                resourceVersion = page.resourceVersion();
                shardSelector = page.shardSelector();
                items = page.items();
            } else {
                shardSelector = Objects.equals(shardSelector, page.shardSelector()) ? shardSelector : null;
                if (pages == 1) {
                    items = new ArrayList<>(items);
                }
                items.addAll(page.items());
            }
            paginated |= page.hasMore();
            pages++;
            return this;
        }

        /** The server did paginate, even if the result in hand is one unpaginated page. */
        Gathered<T> markPaginated() {
            paginated = true;
            return this;
        }
    }
}

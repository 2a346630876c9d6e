package io.reactiveinformer.cache;

import java.util.List;

/**
 * Computes the values under which an object is indexed (client-go's {@code IndexFunc}). An object
 * may have any number of values, none included. It runs on the cache's writer thread for every
 * write, so it must be fast, side-effect free and must not mutate the object.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface IndexFunction<T> {

    /** The index values of {@code object}; never {@code null}, duplicates are ignored. */
    List<String> values(T object);
}

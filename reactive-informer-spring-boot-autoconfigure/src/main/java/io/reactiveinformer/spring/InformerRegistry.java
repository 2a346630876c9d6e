package io.reactiveinformer.spring;

import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Every informer of the application: those the {@link SharedInformerFactory} made (declared as beans
 * or not) and informer beans built by hand. What the lifecycle starts and the health indicator and
 * actuator endpoint report. Thread-safe.
 */
public final class InformerRegistry {

    private final SharedInformerFactory factory;
    private final ObjectProvider<SharedIndexInformer<?>> beans;

    public InformerRegistry(SharedInformerFactory factory, ObjectProvider<SharedIndexInformer<?>> beans) {
        this.factory = factory;
        this.beans = beans;
    }

    public SharedInformerFactory factory() {
        return factory;
    }

    /** The factory's informers, in creation order, then informer beans the factory did not make. */
    public List<SharedIndexInformer<?>> informers() {
        List<SharedIndexInformer<?>> all = new ArrayList<>(factory.informers());
        all.addAll(standalone());
        return all;
    }

    /** Informer beans that the factory did not make: the application built them and the lifecycle starts them. */
    List<SharedIndexInformer<?>> standalone() {
        Set<SharedIndexInformer<?>> fromFactory = Collections.newSetFromMap(new IdentityHashMap<>());
        fromFactory.addAll(factory.informers());
        List<SharedIndexInformer<?>> standalone = new ArrayList<>();
        beans.orderedStream().filter(i -> !fromFactory.contains(i)).forEach(standalone::add);
        return standalone;
    }
}

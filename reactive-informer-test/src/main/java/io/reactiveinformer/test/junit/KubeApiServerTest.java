package io.reactiveinformer.test.junit;

import io.reactiveinformer.test.apiserver.KubeApiServer;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against a real etcd and kube-apiserver on 127.0.0.1 and lets its
 * constructor, lifecycle and test methods take a {@link KubeApiServer} parameter; with
 * {@link #controlPlane()}, against another one that also runs kube-controller-manager, kube-scheduler and
 * kwok's fake nodes.
 *
 * <p>Each environment is started once per JVM, shared by every class annotated alike and stopped when the
 * test run ends; see {@link KubeApiServerExtension} for how it is found, built or reused.
 */
@Documented
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(KubeApiServerExtension.class)
public @interface KubeApiServerTest {

    /**
     * Whether the tests need the rest of a control plane ({@link KubeApiServer#startOrAttachControlPlane()});
     * without one they get a kube-apiserver that only stores what they write.
     */
    boolean controlPlane() default false;
}

/**
 * Coordination of controller replicas on {@code coordination.k8s.io/v1} Leases: leader election
 * ({@link io.reactiveinformer.leaderelection.LeaderElector}, client-go's {@code tools/leaderelection}) and
 * key-hash sharding ({@link io.reactiveinformer.leaderelection.ShardElector}). Both report
 * {@link io.reactiveinformer.leaderelection.LeadershipEvent}s whose
 * {@link io.reactiveinformer.leaderelection.LeaseTerm}s say while work may run; expiry is judged by each
 * replica's own clock, and every timer runs on a replaceable scheduler.
 */
package io.reactiveinformer.leaderelection;

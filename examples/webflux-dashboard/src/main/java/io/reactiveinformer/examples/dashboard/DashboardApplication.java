package io.reactiveinformer.examples.dashboard;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A live pod dashboard: {@code GET /pods} (the cache as JSON), {@code GET /events} (server-sent
 * events: the pods, a sync marker, then every change) and a page ({@code /}) with a table of pods and a
 * per-namespace count chart that follows the stream.
 *
 * <p>Runs against {@code $KUBECONFIG} when it is set; otherwise against an embedded simulated API
 * server with a few pods that change every second ({@link DemoCluster}).
 */
@SpringBootApplication
public class DashboardApplication {

    public static void main(String[] args) {
        application().run(args);
    }

    /** The application, with the embedded simulated cluster as the default when there is no $KUBECONFIG. */
    static SpringApplication application() {
        SpringApplication app = new SpringApplication(DashboardApplication.class);
        if (System.getenv("KUBECONFIG") == null) {
            app.setDefaultProperties(Map.of("reactive-informer.simulated.enabled", "true",
                    "dashboard.demo-churn", "true"));
        }
        return app;
    }
}

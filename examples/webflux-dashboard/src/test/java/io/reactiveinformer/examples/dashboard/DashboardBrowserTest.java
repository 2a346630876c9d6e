package io.reactiveinformer.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.SharedIndexInformer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The page in a real browser (headless Chromium): it shows the simulated server's pods, and a change
 * made through the API reaches its row within 2 s. Leaves {@code target/dashboard.png}.
 */
@SpringBootTest(classes = DashboardApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "reactive-informer.simulated.enabled=true")
class DashboardBrowserTest {

    private static ChromeDriver browser;

    @LocalServerPort
    int port;
    @Autowired
    SharedIndexInformer<V1Pod> pods;
    @Autowired
    KubernetesClient client;

    @BeforeAll
    static void startBrowser() throws Exception {
        Chromium.ensureInstalled();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(Chromium.BROWSER.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1100,640");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Chromium.DRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void thePageShowsThePodsAndFollowsAChangeWithinTwoSeconds() throws Exception {
        pods.hasSynced().block(Duration.ofSeconds(30));
        browser.get("http://127.0.0.1:" + port + "/");

        new WebDriverWait(browser, Duration.ofSeconds(30)).until(d ->
                d.findElement(By.id("status")).getText().contains("in sync")
                        && d.findElements(By.cssSelector("#pods tr")).size() == pods.indexer().size());
        // read in one wait that retries a read the page's next re-render made stale
        WebDriverWait read = new WebDriverWait(browser, Duration.ofSeconds(10));
        read.ignoring(StaleElementReferenceException.class);
        String row = read.until(d -> d.findElement(By.id("pod-shop-shop-0")).getText());
        assertThat(row).contains("shop", "shop-0", "node-");
        List<String> bars = read.until(d -> d.findElements(By.cssSelector("#bars .bar")).stream()
                .map(e -> e.getAttribute("data-namespace")).toList());
        assertThat(bars).containsExactly("payments", "search", "shop");

        client.resource(V1Pod.class).inNamespace("shop")
                .patchStatus("shop-0", PatchType.MERGE, "{\"status\":{\"phase\":\"Failed\"}}").block(Duration.ofSeconds(10));
        long patched = System.nanoTime();
        // the page replaces a row's cells when its pod changes: a cell found just before is then stale
        new WebDriverWait(browser, Duration.ofSeconds(2), Duration.ofMillis(20))
                .ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(By.cssSelector("#pod-shop-shop-0 td.phase")).getText().equals("Failed"));
        long millis = (System.nanoTime() - patched) / 1_000_000;
        System.out.println("the row showed the change " + millis + " ms after the PATCH returned");

        Path screenshot = Path.of("target", "dashboard.png");
        Files.createDirectories(screenshot.getParent());
        Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), screenshot, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(screenshot)).isPositive();
    }
}

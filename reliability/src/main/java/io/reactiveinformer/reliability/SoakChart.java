package io.reactiveinformer.reliability;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The soak's samples as a PNG: one panel per series (the trend series plus the churn rate and the check
 * time) over minutes, each with its own zero-based axis so that a flat line looks flat and a slope looks
 * like one. Drawn with Java2D, headless; no charting dependency for one picture.
 */
final class SoakChart {

    private static final int WIDTH = 1200;
    private static final int PANEL = 170;
    private static final int LEFT = 90;
    private static final int RIGHT = 30;
    private static final int TOP = 40;

    private SoakChart() {
    }

    static void write(List<SoakSample> samples, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<SoakSample.Series> panels = new ArrayList<>(SoakSample.SERIES);
        panels.add(new SoakSample.Series("changes/s while churning", SoakSample::changesPerSecond, 0));
        panels.add(new SoakSample.Series("convergence check, all targets (ms)", SoakSample::checkMillis, 0));
        int height = TOP + panels.size() * PANEL + 30;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("Soak: samples every cycle (minutes on the x axis)", LEFT, 24);
        double maxMinutes = samples.isEmpty() ? 1 : Math.max(1, samples.get(samples.size() - 1).seconds() / 60.0);
        for (int p = 0; p < panels.size(); p++) {
            panel(g, samples, panels.get(p), TOP + p * PANEL, maxMinutes);
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    private static void panel(Graphics2D g, List<SoakSample> samples, SoakSample.Series series, int top, double maxMinutes) {
        int plotTop = top + 22;
        int plotHeight = PANEL - 50;
        int plotWidth = WIDTH - LEFT - RIGHT;
        double max = samples.stream().mapToDouble(series.value()).max().orElse(1);
        max = max <= 0 ? 1 : max * 1.15;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.setColor(Color.BLACK);
        g.drawString(series.name(), LEFT, top + 14);
        g.setColor(new Color(225, 225, 225));
        for (int i = 0; i <= 4; i++) {
            int y = plotTop + plotHeight - i * plotHeight / 4;
            g.drawLine(LEFT, y, LEFT + plotWidth, y);
        }
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (int i = 0; i <= 4; i++) {
            int y = plotTop + plotHeight - i * plotHeight / 4;
            g.drawString(String.format(Locale.ROOT, max < 10 ? "%.1f" : "%.0f", max * i / 4), 10, y + 4);
        }
        for (int m = 0; m <= (int) maxMinutes; m += Math.max(1, (int) Math.ceil(maxMinutes / 12))) {
            int x = LEFT + (int) (m / maxMinutes * plotWidth);
            g.drawString(Integer.toString(m), x - 4, plotTop + plotHeight + 14);
        }
        g.setColor(new Color(30, 90, 180));
        g.setStroke(new BasicStroke(2f));
        int px = -1;
        int py = -1;
        for (SoakSample s : samples) {
            int x = LEFT + (int) (s.seconds() / 60.0 / maxMinutes * plotWidth);
            int y = plotTop + plotHeight - (int) (series.value().applyAsDouble(s) / max * plotHeight);
            if (px >= 0) {
                g.drawLine(px, py, x, y);
            }
            g.fillOval(x - 2, y - 2, 5, 5);
            px = x;
            py = y;
        }
        g.setStroke(new BasicStroke(1f));
    }
}

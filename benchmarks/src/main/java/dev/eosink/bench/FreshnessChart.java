/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Throughput against p99 freshness, one line per writer and parallelism through its checkpoint
 * intervals (x: p99 freshness, logarithmic; y: rows/s), Java2D only. Up and to the left is better.
 */
final class FreshnessChart {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 650;
    private static final int LEFT = 90;
    private static final int RIGHT = 240;
    private static final int TOP = 60;
    private static final int BOTTOM = 70;
    private static final Color[] COLOR = {
        new Color(0x3b6ea8), new Color(0xe08a2c), new Color(0x5a9e5a), new Color(0x8a5aa8), new Color(0xb00020),
        new Color(0x2a9d8f), new Color(0x6d6d6d), new Color(0xc9a227), new Color(0x9c4f2e), new Color(0x1d3557)
    };

    private FreshnessChart() {}

    static void draw(List<FreshnessReport.Point> points, String title, Path png) throws IOException {
        Map<String, List<FreshnessReport.Point>> series = new LinkedHashMap<>();
        List<Writer> writers = new ArrayList<>();
        double minMs = 10;
        double maxMs = 1000;
        double maxRate = 1;
        for (FreshnessReport.Point p : points) {
            if (!p.p99Ms.isPresent() || !p.rowsPerS.isPresent()) {
                continue;
            }
            series.computeIfAbsent(p.spec.writer.id + " p" + p.spec.parallelism, k -> new ArrayList<>())
                    .add(p);
            if (!writers.contains(p.spec.writer)) {
                writers.add(p.spec.writer);
            }
            minMs = Math.min(minMs, p.p99Ms.getAsDouble());
            maxMs = Math.max(maxMs, p.p99Ms.getAsDouble());
            maxRate = Math.max(maxRate, p.rowsPerS.getAsDouble());
        }
        double lo = Math.pow(10, Math.floor(Math.log10(Math.max(1, minMs))));
        double hi = Math.pow(10, Math.ceil(Math.log10(maxMs)));
        double top = Math.ceil(maxRate * 1.1 / 100_000) * 100_000;
        Canvas.png(png, WIDTH, HEIGHT, title, LEFT, g -> lines(g, series, writers, lo, hi, top));
    }

    private static void lines(
            Graphics2D g,
            Map<String, List<FreshnessReport.Point>> series,
            List<Writer> writers,
            double lo,
            double hi,
            double top) {
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        int baseY = TOP + plotH;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        for (int i = 0; i <= 5; i++) { // y: rows/s
            int y = baseY - (int) Math.round(plotH * i / 5.0);
            grid(g, LEFT, y, LEFT + plotW, y);
            String s = String.format(java.util.Locale.ROOT, "%,.0fk", top * i / 5 / 1000);
            g.drawString(s, LEFT - 8 - g.getFontMetrics().stringWidth(s), y + 5);
        }
        for (double ms = lo; ms <= hi * 1.0001; ms *= 10) { // x: p99 freshness, log
            for (int k = 1; k < 10 && ms * k <= hi * 1.0001; k++) {
                int x = LEFT + x(ms * k, lo, hi, plotW);
                grid(g, x, TOP, x, baseY);
                if (k == 1 || k == 2 || k == 5) {
                    String s = ms * k >= 1000 ? (long) (ms * k / 1000) + " s" : (long) (ms * k) + " ms";
                    g.drawString(s, x - g.getFontMetrics().stringWidth(s) / 2, baseY + 20);
                }
            }
        }
        g.setColor(Color.BLACK);
        g.drawLine(LEFT, baseY, LEFT + plotW, baseY);
        g.drawLine(LEFT, TOP, LEFT, baseY);
        g.drawString("p99 freshness (record made → row committed), log scale", LEFT + plotW / 3, baseY + 45);
        g.drawString("rows/s", 10, TOP - 10);

        int legendY = TOP + 10;
        for (Map.Entry<String, List<FreshnessReport.Point>> e : series.entrySet()) {
            List<FreshnessReport.Point> line = e.getValue();
            Writer w = line.get(0).spec.writer;
            boolean p2 = line.get(0).spec.parallelism > 1;
            g.setColor(COLOR[writers.indexOf(w) % COLOR.length]);
            g.setStroke(
                    p2
                            ? new BasicStroke(
                                    2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {6f, 4f}, 0f)
                            : new BasicStroke(2f));
            int px = -1;
            int py = -1;
            for (FreshnessReport.Point p : line) {
                int x = LEFT + x(p.p99Ms.getAsDouble(), lo, hi, plotW);
                int y = baseY - (int) Math.round(plotH * p.rowsPerS.getAsDouble() / top);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                marker(g, x, y, p2);
                g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
                g.drawString(Spec.interval(p.spec.intervalMs), x + 7, y - 5);
                px = x;
                py = y;
            }
            g.setStroke(new BasicStroke(1f));
            marker(g, LEFT + plotW + 20, legendY - 4, p2);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            g.drawString(e.getKey(), LEFT + plotW + 32, legendY + 1);
            legendY += 20;
        }
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString("labels: checkpoint interval", LEFT + plotW + 20, legendY + 14);
        g.drawString("solid: p1, dashed: p2", LEFT + plotW + 20, legendY + 30);
    }

    private static int x(double ms, double lo, double hi, int plotW) {
        return (int) Math.round(plotW * (Math.log10(ms) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
    }

    private static void grid(Graphics2D g, int x1, int y1, int x2, int y2) {
        g.setColor(new Color(0xdddddd));
        g.drawLine(x1, y1, x2, y2);
        g.setColor(Color.DARK_GRAY);
    }

    private static void marker(Graphics2D g, int x, int y, boolean square) {
        if (square) {
            g.fillRect(x - 4, y - 4, 9, 9);
        } else {
            g.fillOval(x - 4, y - 4, 9, 9);
        }
    }
}

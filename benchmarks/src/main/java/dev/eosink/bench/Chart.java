/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A grouped bar chart of the throughput lines (one group per writer, one bar per parallelism), Java2D only. */
final class Chart {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 600;
    private static final int LEFT = 90;
    private static final int RIGHT = 30;
    private static final int TOP = 70;
    private static final int BOTTOM = 110;
    private static final Color[] BAR = {
        new Color(0x3b6ea8), new Color(0xe08a2c), new Color(0x5a9e5a), new Color(0x8a5aa8)
    };

    private Chart() {}

    static void draw(List<Report.Line> lines, String title, Path png) throws IOException {
        // groups: one per writer, in the lines' order (append writers, then upsert writers)
        Map<Writer, List<Report.Line>> groups = new LinkedHashMap<>();
        List<Integer> parallelisms = new ArrayList<>();
        double max = 1;
        for (Report.Line l : lines) {
            groups.computeIfAbsent(l.spec.writer, w -> new ArrayList<>()).add(l);
            if (!parallelisms.contains(l.spec.parallelism)) {
                parallelisms.add(l.spec.parallelism);
            }
            if (l.rowsPerS.isPresent()) {
                max = Math.max(max, l.rowsPerS.getAsDouble());
            }
        }
        parallelisms.sort(Integer::compare);
        double top = niceCeiling(max * 1.12);
        Canvas.png(png, WIDTH, HEIGHT, title, LEFT, g -> bars(g, groups, parallelisms, top));
    }

    private static void bars(
            Graphics2D g, Map<Writer, List<Report.Line>> groups, List<Integer> parallelisms, double top) {
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        int baseY = TOP + plotH;

        // y grid and labels
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        FontMetrics fm = g.getFontMetrics();
        for (int i = 0; i <= 5; i++) {
            double v = top * i / 5;
            int y = baseY - (int) Math.round(plotH * i / 5.0);
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT, y, LEFT + plotW, y);
            g.setColor(Color.DARK_GRAY);
            String s = compact(v);
            g.drawString(s, LEFT - 8 - fm.stringWidth(s), y + 5);
        }
        g.setColor(Color.BLACK);
        g.drawLine(LEFT, baseY, LEFT + plotW, baseY);

        int n = Math.max(1, groups.size());
        double groupW = plotW / (double) n;
        double barW = Math.min(60, groupW * 0.8 / Math.max(1, parallelisms.size()));
        int gi = 0;
        Writer previous = null;
        for (Map.Entry<Writer, List<Report.Line>> e : groups.entrySet()) {
            Writer w = e.getKey();
            double gx = LEFT + gi * groupW;
            if (previous != null && previous.workload != w.workload) { // separator between append and upsert
                g.setColor(Color.GRAY);
                g.setStroke(new BasicStroke(
                        1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {4f, 4f}, 0f));
                g.drawLine((int) gx, TOP - 10, (int) gx, baseY + 60);
                g.setStroke(new BasicStroke(1f));
            }
            double x0 = gx + (groupW - barW * parallelisms.size()) / 2;
            for (Report.Line l : e.getValue()) {
                int pi = parallelisms.indexOf(l.spec.parallelism);
                int x = (int) Math.round(x0 + pi * barW);
                int bw = (int) Math.round(barW) - 4;
                g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
                FontMetrics f = g.getFontMetrics();
                if (l.rowsPerS.isPresent()) {
                    double v = l.rowsPerS.getAsDouble();
                    int h = (int) Math.round(plotH * v / top);
                    g.setColor(BAR[pi % BAR.length]);
                    g.fillRect(x, baseY - h, bw, h);
                    g.setColor(Color.BLACK);
                    String s = compact(v);
                    g.drawString(s, x + (bw - f.stringWidth(s)) / 2, baseY - h - 18);
                    if (l.ratio.isPresent()) {
                        String r = String.format(Locale.ROOT, "%.2f×", l.ratio.getAsDouble());
                        g.setColor(Color.DARK_GRAY);
                        g.drawString(r, x + (bw - f.stringWidth(r)) / 2, baseY - h - 4);
                    }
                } else {
                    g.setColor(new Color(0xb00020));
                    String s = "failed";
                    g.drawString(s, x + (bw - f.stringWidth(s)) / 2, baseY - 6);
                }
            }
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
            FontMetrics f = g.getFontMetrics();
            g.drawString(w.id, (int) (gx + (groupW - f.stringWidth(w.id)) / 2), baseY + 22);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            f = g.getFontMetrics();
            String c = w.workload.id();
            g.setColor(Color.GRAY);
            g.drawString(c, (int) (gx + (groupW - f.stringWidth(c)) / 2), baseY + 40);
            previous = w;
            gi++;
        }

        // legend
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        int lx = LEFT;
        int ly = HEIGHT - 30;
        for (int i = 0; i < parallelisms.size(); i++) {
            g.setColor(BAR[i % BAR.length]);
            g.fillRect(lx, ly - 11, 14, 14);
            g.setColor(Color.BLACK);
            String s = "parallelism " + parallelisms.get(i);
            g.drawString(s, lx + 20, ly + 1);
            lx += 40 + g.getFontMetrics().stringWidth(s);
        }
        g.setColor(Color.DARK_GRAY);
        g.drawString("label: rows/s and × raw COPY at the same parallelism", lx + 20, ly + 1);
    }

    private static String compact(double v) {
        if (v >= 1_000_000) {
            return String.format(Locale.ROOT, "%.2fM", v / 1_000_000);
        }
        if (v >= 1_000) {
            return String.format(Locale.ROOT, "%.0fk", v / 1_000);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }
}

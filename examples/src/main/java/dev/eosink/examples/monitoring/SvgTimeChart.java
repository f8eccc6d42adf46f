/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.monitoring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Time series in panels stacked over one time axis, as an SVG document (text: small, diffable, shown
 * by any browser), with vertical marks across all panels for events such as restarts.
 */
public final class SvgTimeChart {

    private static final int WIDTH = 1000;
    private static final int LEFT = 80;
    private static final int RIGHT = 250;
    private static final int PANEL_HEIGHT = 120;
    private static final int PANEL_GAP = 42;
    private static final int TOP = 150;
    private static final String[] COLORS = {"#3b6ea8", "#e08a2c", "#5a9e5a", "#8a5aa8"};

    /** One line: its name and its points (seconds on the time axis, value); NaN values are gaps. */
    public record Series(String name, double[] seconds, double[] values) {
        // Written out: the compiler's versions pin a class loader in a JDK-wide cache (ArchitectureTest).
        @Override
        public boolean equals(Object other) {
            return other instanceof Series o
                    && Objects.equals(name, o.name)
                    && Arrays.equals(seconds, o.seconds)
                    && Arrays.equals(values, o.values);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, Arrays.hashCode(seconds), Arrays.hashCode(values));
        }

        @Override
        public String toString() {
            return "Series[" + "name=" + name + ", " + "seconds=" + Arrays.toString(seconds) + ", " + "values="
                    + Arrays.toString(values) + "]";
        }
    }

    /** One panel: a title, a unit for its axis, its lines, and what to say when none has a point. */
    public record Panel(String title, String unit, List<Series> series, String whenEmpty) {
        // Written out: the compiler's versions pin a class loader in a JDK-wide cache (ArchitectureTest).
        @Override
        public boolean equals(Object other) {
            return other instanceof Panel o
                    && Objects.equals(title, o.title)
                    && Objects.equals(unit, o.unit)
                    && Objects.equals(series, o.series)
                    && Objects.equals(whenEmpty, o.whenEmpty);
        }

        @Override
        public int hashCode() {
            return Objects.hash(title, unit, series, whenEmpty);
        }

        @Override
        public String toString() {
            return "Panel[" + "title=" + title + ", " + "unit=" + unit + ", " + "series=" + series + ", " + "whenEmpty="
                    + whenEmpty + "]";
        }
    }

    /** A vertical mark across the panels at {@code seconds}, labelled at the top. */
    public record Mark(double seconds, String label) {
        // Written out: the compiler's versions pin a class loader in a JDK-wide cache (ArchitectureTest).
        @Override
        public boolean equals(Object other) {
            return other instanceof Mark o && Double.compare(seconds, o.seconds) == 0 && Objects.equals(label, o.label);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Double.hashCode(seconds), label);
        }

        @Override
        public String toString() {
            return "Mark[" + "seconds=" + seconds + ", " + "label=" + label + "]";
        }
    }

    /** A shaded stretch of time across the panels, {@code from} to {@code to} seconds, labelled at the top. */
    public record Span(double from, double to, String label) {
        // Written out: the compiler's versions pin a class loader in a JDK-wide cache (ArchitectureTest).
        @Override
        public boolean equals(Object other) {
            return other instanceof Span o
                    && Double.compare(from, o.from) == 0
                    && Double.compare(to, o.to) == 0
                    && Objects.equals(label, o.label);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Double.hashCode(from), Double.hashCode(to), label);
        }

        @Override
        public String toString() {
            return "Span[" + "from=" + from + ", " + "to=" + to + ", " + "label=" + label + "]";
        }
    }

    private final String title;
    private final String subtitle;
    private final double endSeconds;
    private final List<Panel> panels = new ArrayList<>();
    private final List<Mark> marks = new ArrayList<>();
    private final List<Span> spans = new ArrayList<>();

    /** A chart of {@code endSeconds} seconds; the subtitle may have several lines. */
    public SvgTimeChart(String title, String subtitle, double endSeconds) {
        this.title = title;
        this.subtitle = subtitle;
        this.endSeconds = Math.max(1, endSeconds);
    }

    public SvgTimeChart panel(Panel panel) {
        panels.add(panel);
        return this;
    }

    public SvgTimeChart mark(Mark mark) {
        marks.add(mark);
        return this;
    }

    public SvgTimeChart span(Span span) {
        spans.add(span);
        return this;
    }

    public String render() {
        int height = TOP + panels.size() * (PANEL_HEIGHT + PANEL_GAP) + 30;
        int plotW = WIDTH - LEFT - RIGHT;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH,
                height,
                WIDTH,
                height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        svg.append(text(LEFT, 26, title, "font-size=\"18\" font-weight=\"bold\""));
        int line = 0;
        for (String part : subtitle.split("\n")) {
            svg.append(text(LEFT, 46 + 16 * line++, part, "fill=\"#555\""));
        }

        int panelsBottom = TOP + panels.size() * (PANEL_HEIGHT + PANEL_GAP) - PANEL_GAP;
        for (Span span : spans) {
            double x1 = LEFT + plotW * span.from() / endSeconds;
            double x2 = LEFT + plotW * span.to() / endSeconds;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f6e7b0\" "
                            + "fill-opacity=\"0.6\"/>%n",
                    x1,
                    TOP - 48,
                    Math.max(1, x2 - x1),
                    panelsBottom - TOP + 48));
            svg.append(text(x1 + 2, TOP - 38, span.label(), "fill=\"#8a6d00\" font-size=\"10\""));
        }

        int y0 = TOP;
        int lastBase = y0;
        for (Panel panel : panels) {
            int base = y0 + PANEL_HEIGHT;
            double max = 0;
            for (Series s : panel.series()) {
                for (double v : s.values()) {
                    if (!Double.isNaN(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
            double top = niceCeiling(max <= 0 ? 1 : max * 1.1);
            svg.append(text(LEFT, y0 - 8, panel.title(), "font-weight=\"bold\""));
            for (int i = 0; i <= 4; i++) {
                double v = top * i / 4;
                double y = base - PANEL_HEIGHT * i / 4.0;
                svg.append(line(LEFT, y, LEFT + plotW, y, i == 0 ? "#999" : "#e3e3e3"));
                svg.append(text(
                        LEFT - 6,
                        y + 4,
                        compact(v) + (i == 4 ? " " + panel.unit() : ""),
                        "text-anchor=\"end\" fill=\"#555\""));
            }
            if (panel.series().stream().allMatch(s -> s.values().length == 0)) {
                svg.append(text(
                        LEFT + plotW / 2.0,
                        y0 + PANEL_HEIGHT / 2.0,
                        panel.whenEmpty(),
                        "text-anchor=\"middle\" fill=\"#999\""));
            }
            int ci = 0;
            for (Series s : panel.series()) {
                String color = COLORS[ci % COLORS.length];
                StringBuilder points = new StringBuilder();
                for (int i = 0; i < s.seconds().length; i++) {
                    double v = s.values()[i];
                    if (Double.isNaN(v)) {
                        svg.append(polyline(points, color));
                        points.setLength(0);
                        continue;
                    }
                    double x = LEFT + plotW * s.seconds()[i] / endSeconds;
                    double y = base - PANEL_HEIGHT * v / top;
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                }
                svg.append(polyline(points, color));
                double ly = y0 + 10 + ci * 16;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>%n",
                        LEFT + plotW + 12,
                        ly - 4,
                        color));
                svg.append(text(LEFT + plotW + 28, ly, s.name(), ""));
                ci++;
            }
            lastBase = base;
            y0 = base + PANEL_GAP;
        }

        // time axis under the last panel
        double step = niceStep(endSeconds / 10);
        for (double t = 0; t <= endSeconds + 1e-9; t += step) {
            double x = LEFT + plotW * t / endSeconds;
            svg.append(line(x, lastBase, x, lastBase + 5, "#999"));
            svg.append(
                    text(x, lastBase + 18, compact(t) + (t == 0 ? "" : " s"), "text-anchor=\"middle\" fill=\"#555\""));
        }
        for (Mark m : marks) {
            double x = LEFT + plotW * m.seconds() / endSeconds;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c0392b\" "
                            + "stroke-width=\"1\" stroke-dasharray=\"4 3\"/>%n",
                    x,
                    TOP - 30,
                    x,
                    lastBase));
            svg.append(text(x + 3, TOP - 24, m.label(), "fill=\"#c0392b\" font-size=\"10\""));
        }
        return svg.append("</svg>\n").toString();
    }

    private static String polyline(StringBuilder points, String color) {
        if (points.length() == 0) {
            return "";
        }
        return "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\" points=\""
                + points.toString().trim() + "\"/>\n";
    }

    private static String line(double x1, double y1, double x2, double y2, String color) {
        return String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n",
                x1,
                y1,
                x2,
                y2,
                color);
    }

    private static String text(double x, double y, String s, String attributes) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>%n", x, y, attributes, escape(s));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    static String compact(double v) {
        if (v >= 1_000_000) {
            return String.format(Locale.ROOT, "%.1fM", v / 1_000_000);
        }
        if (v >= 10_000) {
            return String.format(Locale.ROOT, "%.0fk", v / 1_000);
        }
        if (v >= 1_000) {
            return String.format(Locale.ROOT, "%.1fk", v / 1_000);
        }
        return new java.math.BigDecimal(v)
                .setScale(2, java.math.RoundingMode.HALF_UP)
                .stripTrailingZeros()
                .toPlainString();
    }

    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static double niceStep(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(Math.max(v, 1e-9))));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }
}

/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import javax.imageio.ImageIO;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/** The charts' common ground: a white, antialiased Java2D canvas with a title, written as a PNG. Headless. */
final class Canvas {

    private Canvas() {}

    /** Paints a {@code width} × {@code height} image: background and title here, the rest by {@code paint}. */
    static void png(Path png, int width, int height, String title, int titleX, Consumer<Graphics2D> paint)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString(title, titleX, 32);
            paint.accept(g);
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", png.toFile());
    }
}

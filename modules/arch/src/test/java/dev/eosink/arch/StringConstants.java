/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.arch;

import com.tngtech.archunit.core.domain.JavaClass;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The string constants of a class: the {@code CONSTANT_String} entries of its class file's constant pool, which hold
 * its string literals and the fixed parts of its concatenations (javac's recipes for {@code StringConcatFactory}).
 * ArchUnit shows a class's members and dependencies, not its constants.
 */
final class StringConstants {

    private StringConstants() {}

    static List<String> of(JavaClass c) {
        String resource = "/" + c.getName().replace('.', '/') + ".class";
        try (InputStream in = c.reflect().getResourceAsStream(resource)) {
            DataInputStream data = new DataInputStream(in);
            data.skipBytes(8); // magic, minor and major version
            int count = data.readUnsignedShort();
            String[] utf8 = new String[count];
            List<Integer> strings = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = data.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = data.readUTF();
                    case 8 -> strings.add(data.readUnsignedShort());
                    case 7, 16, 19, 20 -> data.skipBytes(2);
                    case 15 -> data.skipBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> data.skipBytes(4);
                    case 5, 6 -> {
                        data.skipBytes(8);
                        i++; // a long or a double takes two entries
                    }
                    default -> throw new IllegalStateException(c.getName() + ": constant pool tag " + tag);
                }
            }
            List<String> constants = new ArrayList<>();
            for (int index : strings) {
                constants.add(utf8[index].replace('\u0001', '?')); // a concatenation's argument
            }
            return constants;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/**
 * A throwaway certificate and key for an embedded PostgreSQL with {@code ssl=on}, made when the server
 * is created, so that no key is ever committed and nothing but the JDK (and this jar's dependencies)
 * is needed: no openssl on the machine.
 *
 * <p>Self-signed for {@code localhost} and 127.0.0.1. The tests' clients connect with
 * {@code sslmode=require}, which encrypts without checking the certificate: what they test is the
 * transport, not who the server is.
 */
final class SelfSignedCertificate {

    /** Longer than any test run, short enough that a leaked file is useless soon. */
    private static final Duration VALIDITY = Duration.ofDays(2);

    private final Path certificateFile;
    private final Path keyFile;

    private SelfSignedCertificate(Path certificateFile, Path keyFile) {
        this.certificateFile = certificateFile;
        this.keyFile = keyFile;
    }

    /** Makes a new key pair and certificate and writes both, PEM-encoded, into {@code directory}. */
    static SelfSignedCertificate writeTo(Path directory) {
        try {
            // EC P-256: generated in milliseconds (an RSA key takes up to a second on a busy machine),
            // and both OpenSSL (the server) and the JDK (the driver) speak it.
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256, new SecureRandom());
            KeyPair keys = generator.generateKeyPair();

            X500Name subject = new X500Name("CN=localhost, O=eosink tests");
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    subject,
                    new BigInteger(64, new SecureRandom()),
                    Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(VALIDITY)),
                    subject,
                    keys.getPublic());
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")
            }));
            ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate());
            byte[] certificate = builder.build(signer).getEncoded();

            Files.createDirectories(directory);
            Path certificateFile = directory.resolve("server.crt");
            Path keyFile = directory.resolve("server.key");
            Files.writeString(certificateFile, pem("CERTIFICATE", certificate), StandardCharsets.US_ASCII);
            // PostgreSQL refuses a key file that its group or others may read.
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.deleteIfExists(keyFile);
                Files.createFile(
                        keyFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(keyFile, pem("PRIVATE KEY", keys.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
            return new SelfSignedCertificate(certificateFile, keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write a TLS certificate and key into " + directory, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("Could not make a self-signed TLS certificate", e);
        }
    }

    Path certificateFile() {
        return certificateFile;
    }

    /** PKCS#8, unencrypted: the server reads it without a passphrase. */
    Path keyFile() {
        return keyFile;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}

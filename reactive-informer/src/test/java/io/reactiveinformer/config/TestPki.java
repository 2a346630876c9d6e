package io.reactiveinformer.config;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A throwaway CA issuing server and client certificates, generated with BouncyCastle. */
public final class TestPki {

    private static final AtomicLong SERIAL = new AtomicLong(1);

    /** A key pair and its certificate. */
    public record Issued(KeyPair keys, X509Certificate certificate) {

        public String certificatePem() {
            return pem(certificate);
        }

        /** The key in the traditional OpenSSL form: PKCS#1 for RSA, SEC1 with curve parameters (as openssl writes it) for EC. */
        public String keyPemTraditional() {
            if (!(keys.getPrivate() instanceof java.security.interfaces.ECPrivateKey)) {
                return pem(keys);
            }
            try {
                PrivateKeyInfo info = PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded());
                ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
                ECPrivateKey full = new ECPrivateKey(256, inner.getKey(),
                        SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded()).getPublicKeyData(),
                        info.getPrivateKeyAlgorithm().getParameters());
                return pem(new PemObject("EC PRIVATE KEY", full.getEncoded()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public String keyPemPkcs8() {
            try {
                return pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public PrivateKey privateKey() {
            return keys.getPrivate();
        }
    }

    private final Issued ca;

    public TestPki() {
        KeyPair keys = rsa();
        ca = new Issued(keys, sign("CN=test-ca", keys, "CN=test-ca", keys.getPrivate(), true, false));
    }

    public Issued ca() {
        return ca;
    }

    public Issued server() {
        KeyPair keys = rsa();
        return new Issued(keys, sign("CN=kube-apiserver", keys, "CN=test-ca", ca.privateKey(), false, true));
    }

    public Issued client(boolean ec) {
        KeyPair keys = ec ? ec() : rsa();
        return new Issued(keys, sign("CN=admin,O=system:masters", keys, "CN=test-ca", ca.privateKey(), false, false));
    }

    private static X509Certificate sign(String subject, KeyPair keys, String issuer, PrivateKey issuerKey, boolean isCa,
                                        boolean localhost) {
        Instant now = Instant.now();
        try {
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(new X500Name(issuer),
                    BigInteger.valueOf(SERIAL.getAndIncrement()), Date.from(now.minus(1, ChronoUnit.HOURS)),
                    Date.from(now.plus(1, ChronoUnit.DAYS)), new X500Name(subject), keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
            if (localhost) {
                builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
            }
            String algorithm = "SHA256with" + (issuerKey.getAlgorithm().equals("EC") ? "ECDSA" : "RSA");
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKey)));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair ec() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(Object o) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}

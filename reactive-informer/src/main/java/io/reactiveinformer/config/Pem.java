package io.reactiveinformer.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/** PEM certificates (JDK) and private keys (BouncyCastle: PKCS#1 RSA, SEC1 EC, PKCS#8). */
final class Pem {

    private Pem() {
    }

    static List<X509Certificate> certificates(byte[] pem, String what) {
        try {
            List<X509Certificate> certs = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                certs.add((X509Certificate) c);
            }
            if (certs.isEmpty()) {
                throw new ConfigException(what + " holds no certificate");
            }
            return certs;
        } catch (CertificateException e) {
            throw new ConfigException(what + " is not a PEM certificate: " + e.getMessage(), e);
        }
    }

    static PrivateKey privateKey(byte[] pem, String what) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (Reader reader = new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII);
             PEMParser parser = new PEMParser(reader)) {
            Object section;
            while ((section = parser.readObject()) != null) {
                if (section instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (section instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
            }
        } catch (IOException e) {
            throw new ConfigException(what + " is not a readable PEM private key", e);
        }
        throw new ConfigException(what + " holds no unencrypted private key");
    }
}

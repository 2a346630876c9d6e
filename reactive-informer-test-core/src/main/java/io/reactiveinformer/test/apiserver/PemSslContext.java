package io.reactiveinformer.test.apiserver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Builds an {@link SSLContext} from the PEM files testenv.sh writes, with the JDK alone. */
final class PemSslContext {

    private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_END = "-----END PRIVATE KEY-----";

    private PemSslContext() {
    }

    static SSLContext create(Path certificate, Path privateKey, Path caCertificate) {
        try {
            char[] noPassword = new char[0];
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", readKey(privateKey), noPassword,
                    readCertificates(certificate).toArray(Certificate[]::new));
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, noPassword);

            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            int i = 0;
            for (Certificate ca : readCertificates(caCertificate)) {
                trusted.setCertificateEntry("ca-" + i++, ca);
            }
            TrustManagerFactory trustManagers =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trusted);

            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        }
        catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a TLS context from " + certificate + ", " + privateKey
                    + " and " + caCertificate, e);
        }
    }

    private static Collection<? extends Certificate> readCertificates(Path pem)
            throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
    }

    private static PrivateKey readKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        int begin = text.indexOf(KEY_BEGIN);
        int end = text.indexOf(KEY_END);
        if (begin < 0 || end < begin) {
            throw new InvalidKeySpecException(pem + " holds no PKCS#8 '" + KEY_BEGIN + "' block");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + KEY_BEGIN.length(), end));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        try {
            return KeyFactory.getInstance("EC").generatePrivate(spec);
        }
        catch (InvalidKeySpecException notEc) {
            return KeyFactory.getInstance("RSA").generatePrivate(spec);
        }
    }
}

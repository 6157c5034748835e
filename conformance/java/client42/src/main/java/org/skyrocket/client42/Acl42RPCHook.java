package org.skyrocket.client42;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;

/**
 * ACL signing for the RocketMQ 4.2.0 client, which predates AclClientRPCHook (added in 4.4.0):
 * installed through the constructors that take an RPCHook (DefaultMQProducer(group, hook),
 * DefaultMQPullConsumer(group, hook), ...), it signs every request the way a 4.9.4+ client does
 * (acl-tls-facts.md A2.2), which a 4.9.x broker and Skyrocket verify:
 *
 * <ol>
 *   <li>the custom header is copied into extFields first: 4.2.0 does that only when it encodes
 *       the frame, after the hooks ran, so without it the header fields would be sent unsigned;
 *       the copy is idempotent (the encoder puts the same values again);</li>
 *   <li>AccessKey (and SecurityToken when given) are added to extFields;</li>
 *   <li>Signature = Base64(HmacSHA1(secretKey as UTF-8, the values of every extField except
 *       Signature, in String#compareTo order of their keys, UTF-8, then the raw body)).</li>
 * </ol>
 *
 * Our own code, written from the protocol description, not a copy of any Apache class.
 */
public final class Acl42RPCHook implements RPCHook {
    static final String ACCESS_KEY = "AccessKey";
    static final String SIGNATURE = "Signature";
    static final String SECURITY_TOKEN = "SecurityToken";

    private final String accessKey;
    private final String securityToken;
    private final SecretKeySpec key;

    public Acl42RPCHook(String accessKey, String secretKey) {
        this(accessKey, secretKey, null);
    }

    public Acl42RPCHook(String accessKey, String secretKey, String securityToken) {
        if (accessKey == null || secretKey == null) {
            throw new IllegalArgumentException("accessKey and secretKey are required");
        }
        this.accessKey = accessKey;
        this.securityToken = securityToken;
        this.key = new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1");
    }

    @Override
    public void doBeforeRequest(String remoteAddr, RemotingCommand request) {
        request.makeCustomHeaderToNet();
        request.addExtField(ACCESS_KEY, accessKey);
        if (securityToken != null) {
            request.addExtField(SECURITY_TOKEN, securityToken);
        }
        request.addExtField(SIGNATURE, sign(request.getExtFields(), request.getBody()));
    }

    @Override
    public void doAfterResponse(String remoteAddr, RemotingCommand request, RemotingCommand response) {
    }

    /** The signature of fields (without Signature) and body. */
    String sign(Map<String, String> fields, byte[] body) {
        TreeMap<String, String> sorted = new TreeMap<>(fields);
        sorted.remove(SIGNATURE); // a request sent again carries its previous signature
        ByteArrayOutputStream content = new ByteArrayOutputStream(256 + (body == null ? 0 : body.length));
        for (String v : sorted.values()) {
            byte[] b = v.getBytes(StandardCharsets.UTF_8);
            content.write(b, 0, b.length);
        }
        if (body != null) {
            content.write(body, 0, body.length);
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(key);
            return Base64.getEncoder().encodeToString(mac.doFinal(content.toByteArray()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1", e);
        }
    }
}

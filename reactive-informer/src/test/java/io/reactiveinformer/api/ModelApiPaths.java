package io.reactiveinformer.api;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads, from the class file of one of the official client's {@code *Api} classes (without loading
 * it: it needs OkHttp, which this project does not ship), which request path each {@code ...Call}
 * method builds and which model class names the file mentions.
 */
final class ModelApiPaths {

    /** method name -> the first string constant starting with "/api" that its code loads. */
    final Map<String, String> pathByMethod = new HashMap<>();
    final List<String> utf8 = new ArrayList<>();

    ModelApiPaths(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        in.readInt();
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] strings = new String[count];
        int[] stringRef = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> {
                    strings[i] = in.readUTF();
                    utf8.add(strings[i]);
                }
                case 8 -> stringRef[i] = in.readUnsignedShort();
                case 7, 16, 19, 20 -> in.readUnsignedShort();
                case 15 -> in.skipNBytes(3);
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
                case 5, 6 -> {
                    in.skipNBytes(8);
                    i++;
                }
                default -> throw new IOException("constant pool tag " + tag);
            }
        }
        in.skipNBytes(6); // access, this, super
        in.skipNBytes(2L * in.readUnsignedShort()); // interfaces
        int fields = in.readUnsignedShort();
        for (int f = 0; f < fields; f++) {
            in.skipNBytes(6);
            skipAttributes(in);
        }
        int methods = in.readUnsignedShort();
        for (int m = 0; m < methods; m++) {
            in.readUnsignedShort();
            String name = strings[in.readUnsignedShort()];
            in.readUnsignedShort();
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attribute = strings[in.readUnsignedShort()];
                byte[] body = in.readNBytes(in.readInt());
                if (attribute.equals("Code")) {
                    String path = firstApiPath(body, strings, stringRef);
                    if (path != null) {
                        pathByMethod.putIfAbsent(name, path);
                    }
                }
            }
        }
    }

    private static String firstApiPath(byte[] code, String[] strings, int[] stringRef) {
        int length = ((code[4] & 0xff) << 24) | ((code[5] & 0xff) << 16) | ((code[6] & 0xff) << 8) | (code[7] & 0xff);
        // a linear scan for ldc/ldc_w operands: a false hit must also be a String constant with "/api"
        for (int pc = 8; pc < 8 + length - 1; pc++) {
            int op = code[pc] & 0xff;
            int index = op == 0x12 ? code[pc + 1] & 0xff
                    : op == 0x13 && pc + 2 < 8 + length ? ((code[pc + 1] & 0xff) << 8) | (code[pc + 2] & 0xff) : 0;
            if (index > 0 && index < stringRef.length && stringRef[index] != 0) {
                String s = strings[stringRef[index]];
                if (s != null && s.startsWith("/api")) {
                    return s;
                }
            }
        }
        return null;
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
            in.readUnsignedShort();
            in.skipNBytes(in.readInt());
        }
    }
}

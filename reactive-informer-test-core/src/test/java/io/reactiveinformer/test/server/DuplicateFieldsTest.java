package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class DuplicateFieldsTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    @Test
    void repeatedNamesAreFoundWhereTheyRepeatWithTheirPaths() {
        assertThat(of("{\"a\":1,\"b\":{\"c\":[{\"d\":1,\"d\":2},[{\"e\":1,\"e\":1}]],\"c\":2},\"a\":{\"f\":1,\"f\":2}}"))
                .containsExactly("b.c[0].d", "b.c[1][0].e", "b.c", "a", "a.f");
        assertThat(of("[{\"x\":1,\"x\":2}]")).as("a JSON patch's operations").containsExactly("[0].x");
    }

    @Test
    void bodiesWithoutRepeatsOrThatAreNotJsonHaveNone() {
        assertThat(of("{\"a\":{\"a\":{\"a\":1}},\"b\":[\"a\",\"a\"]}")).isEmpty();
        assertThat(of("a: 1\na: 2\n")).isEmpty();
    }

    private static List<String> of(String body) {
        return DuplicateFields.of(MAPPER, body.getBytes(StandardCharsets.UTF_8));
    }
}

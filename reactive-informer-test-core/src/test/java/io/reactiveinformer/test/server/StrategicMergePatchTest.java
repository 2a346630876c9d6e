package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Deployment;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link StrategicMergePatch} on a Deployment, by the merge keys of kube-apiserver's OpenAPI document.
 * The expected results are what kube-apiserver v1.36 answered to the same patches of the same object
 * (e2e's {@code StrategicMergePatchContract} keeps checking the main ones on both servers).
 */
class StrategicMergePatchTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Kind DEPLOYMENTS = new Kind(ResourceType.of(V1Deployment.class), true, null, 10, 0);

    /** Containers app (args, env A and B) and two; an emptyDir volume; finalizers a/x and b/y. */
    private static final String DEPLOYMENT = json("""
            {'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d1','finalizers':['a/x','b/y'],
              'labels':{'app':'d','tier':'web'}},
             'spec':{'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':'25%'}},
              'template':{'metadata':{'labels':{'app':'d'}},'spec':{
               'securityContext':{'runAsUser':1},
               'containers':[{'name':'app','image':'a:1','args':['1','2'],
                              'env':[{'name':'A','value':'1'},{'name':'B','value':'2'}]},
                             {'name':'two','image':'t:1'}],
               'volumes':[{'name':'v','emptyDir':{}}]}}}}
            """);

    @Test
    void mapsMergeAndNullDeletesAKey() {
        JsonNode result = patch("{'metadata':{'labels':{'tier':null,'new':'1'}}}");

        assertThat(result.at("/metadata/labels")).isEqualTo(node("{'app':'d','new':'1'}"));
        assertThat(result.at("/spec/template/spec/containers")).isEqualTo(node(DEPLOYMENT).at("/spec/template/spec/containers"));
    }

    @Test
    void aMapWithPatchReplaceIsReplacedAndOneWithPatchDeleteEmptied() {
        JsonNode result = patch("""
                {'metadata':{'labels':{'$patch':'replace','z':'1'}},
                 'spec':{'template':{'spec':{'securityContext':{'$patch':'delete'}}}}}
                """);

        assertThat(result.at("/metadata/labels")).isEqualTo(node("{'z':'1'}"));
        assertThat(result.at("/spec/template/spec/securityContext")).isEqualTo(node("{}"));
    }

    @Test
    void aNewContainerKeepsTheOthersAndComesFirstAsOnTheRealServer() {
        assertThat(containers(patch(containersPatch("[{'name':'sidecar','image':'s:1'}]"))))
                .containsExactly("sidecar s:1", "app a:1", "two t:1");
        assertThat(containers(patch(containersPatch("[{'name':'two','image':'t:2'},{'name':'x','image':'x:1'}]"))))
                .containsExactly("app a:1", "two t:2", "x x:1");
        assertThat(containers(patch(containersPatch("[{'name':'x','image':'x:1'},{'name':'app','image':'a:2'}]"))))
                .containsExactly("x x:1", "app a:2", "two t:1");
    }

    @Test
    void anItemIsPatchedInPlaceKeepingWhatThePatchDoesNotSay() {
        JsonNode app = patch(containersPatch("[{'name':'app','image':'a:2'}]")).at("/spec/template/spec/containers/0");

        assertThat(app).isEqualTo(node("""
                {'name':'app','image':'a:2','args':['1','2'],'env':[{'name':'A','value':'1'},{'name':'B','value':'2'}]}
                """));
    }

    @Test
    void patchDeleteRemovesAnItemByItsKeyAndPatchReplaceReplacesTheList() {
        assertThat(containers(patch(containersPatch("[{'name':'app','$patch':'delete'}]")))).containsExactly("two t:1");
        assertThat(containers(patch(containersPatch("[{'name':'nope','$patch':'delete'}]"))))
                .containsExactly("app a:1", "two t:1");
        assertThat(containers(patch(containersPatch("[{'name':'only','image':'o:1'},{'$patch':'replace'}]"))))
                .containsExactly("only o:1");
    }

    @Test
    void envIsMergedByName() {
        JsonNode result = patch(containersPatch("[{'name':'app','env':[{'name':'C','value':'3'},{'name':'A','value':'9'}]}]"));

        assertThat(result.at("/spec/template/spec/containers/0/env")).isEqualTo(node("""
                [{'name':'C','value':'3'},{'name':'A','value':'9'},{'name':'B','value':'2'}]
                """));
    }

    @Test
    void setElementOrderOrdersTheMergedList() {
        assertThat(containers(patch(spec("'$setElementOrder/containers':[{'name':'two'},{'name':'app'}]"))))
                .containsExactly("two t:1", "app a:1");
        assertThat(containers(patch(spec("""
                '$setElementOrder/containers':[{'name':'two'},{'name':'x'},{'name':'app'}],
                'containers':[{'name':'x','image':'x:1'}]
                """)))).containsExactly("two t:1", "x x:1", "app a:1");
        assertThat(containers(patch(spec("""
                '$setElementOrder/containers':[{'name':'two'},{'name':'app'}],
                'containers':[{'name':'app','$patch':'delete'}]
                """)))).containsExactly("two t:1");
    }

    @Test
    void retainKeysClearsTheKeysItDoesNotList() {
        JsonNode volumes = patch(spec("'volumes':[{'name':'v','configMap':{'name':'cm'},'$retainKeys':['configMap','name']}]"))
                .at("/spec/template/spec/volumes");
        JsonNode strategy = patch("{'spec':{'strategy':{'$retainKeys':['type'],'type':'Recreate'}}}").at("/spec/strategy");

        assertThat(volumes).isEqualTo(node("[{'name':'v','configMap':{'name':'cm'}}]"));
        assertThat(strategy).isEqualTo(node("{'type':'Recreate'}"));
    }

    @Test
    void withoutRetainKeysAVolumeKeepsItsOtherSource() {
        JsonNode volumes = patch(spec("'volumes':[{'name':'v','configMap':{'name':'cm'}}]")).at("/spec/template/spec/volumes");

        assertThat(volumes).isEqualTo(node("[{'name':'v','emptyDir':{},'configMap':{'name':'cm'}}]"));
    }

    @Test
    void primitiveListsWithTheMergeStrategyAreUnitedAndDeleteFromPrimitiveListRemoves() {
        assertThat(finalizers("{'metadata':{'finalizers':['c/z','a/x']}}")).containsExactly("c/z", "a/x", "b/y");
        assertThat(finalizers("{'metadata':{'$deleteFromPrimitiveList/finalizers':['a/x']}}")).containsExactly("b/y");
        assertThat(finalizers("{'metadata':{'$deleteFromPrimitiveList/finalizers':['a/x'],'finalizers':['a/x','c/z']}}"))
                .containsExactly("a/x", "c/z", "b/y");
        assertThat(finalizers("{'metadata':{'finalizers':['a/x','c/z'],'$deleteFromPrimitiveList/finalizers':['a/x']}}"))
                .containsExactly("c/z", "b/y");
        assertThat(finalizers("{'metadata':{'$setElementOrder/finalizers':['b/y','c/z','a/x'],'finalizers':['c/z']}}"))
                .containsExactly("b/y", "c/z", "a/x");
    }

    @Test
    void listsWithoutTheMergeStrategyAreReplaced() {
        JsonNode result = patch(containersPatch("[{'name':'app','args':['3']}]"));

        assertThat(result.at("/spec/template/spec/containers/0/args")).isEqualTo(node("['3']"));
    }

    @Test
    void newValuesLoseTheirDirectivesAndNoDollarKeyIsStored() {
        JsonNode result = patch(spec("""
                'initContainers':[{'name':'nope','$patch':'delete'}],
                'tolerations':[{'key':'k','$patch':'delete'},{'key':'j','operator':'Exists'}],
                'containers':[{'name':'new','image':'n:1','$setElementOrder/env':[{'name':'X'}],
                               'env':[{'name':'X','value':'1'},{'name':'Y','$patch':'delete'}]}]
                """));

        assertThat(result.at("/spec/template/spec/initContainers")).isEqualTo(node("[]"));
        assertThat(result.at("/spec/template/spec/tolerations")).isEqualTo(node("[{'key':'j','operator':'Exists'}]"));
        assertThat(result.at("/spec/template/spec/containers/0")).isEqualTo(node("""
                {'name':'new','image':'n:1','env':[{'name':'X','value':'1'},{'name':'Y'}]}
                """));
    }

    @Test
    void aNullPatchChangesNothing() {
        assertThat(StrategicMergePatch.apply(DEPLOYMENTS, node(DEPLOYMENT), node("null"))).isEqualTo(node(DEPLOYMENT));
    }

    @Test
    void malformedDirectivesGetTheRealServersStatusAndMessage() {
        Map<String, String> answers = Map.ofEntries(
                Map.entry("{'spec':{'$patch':'bogus'}}", "500 null unknown patch type: bogus in map: map[$patch:bogus]"),
                Map.entry(containersPatch("[{'name':'app','$patch':'bogus'}]"),
                        "500 null unknown patch type: bogus in map: map[$patch:bogus name:app]"),
                Map.entry(containersPatch("[{'name':'app','$patch':'merge'}]"),
                        "500 null merging lists cannot yet be specified in the patch"),
                Map.entry(containersPatch("[{'$patch':'delete'}]"),
                        "500 null map: map[$patch:delete] does not contain declared merge key: name"),
                Map.entry(containersPatch("[{'image':'x'}]"),
                        "500 null map: map[image:x] does not contain declared merge key: name"),
                Map.entry("{'metadata':{'$deleteFromPrimitiveList':['a/x']}}",
                        "400 BadRequest invalid patch format of primitive list"),
                Map.entry("{'metadata':{'$deleteFromPrimitiveListfinalizers':['a/x']}}",
                        "400 BadRequest invalid patch format of primitive list"),
                Map.entry("{'metadata':{'$setElementOrder':['a/x']}}",
                        "400 BadRequest invalid patch format of setElementOrder list"),
                Map.entry("{'metadata':{'$setElementOrder/finalizers':'a/x'}}",
                        "500 null expected a []interface {}, but received a string"),
                Map.entry(spec("'$setElementOrder/containers':[{'name':'app'}],'containers':[{'name':'x','image':'x'}]"),
                        "500 null The order in patch list:\n[map[image:x name:x]]\n doesn't match $setElementOrder list:\n"
                                + "[map[name:app]]\n"),
                Map.entry(spec("'$setElementOrder/containers':[{'image':'app'}]"),
                        "500 null map: map[image:app] does not contain declared merge key: name"),
                Map.entry(spec("'volumes':[{'name':'v','configMap':{'name':'cm'},'$retainKeys':'configMap'}]"),
                        "400 BadRequest invalid patch format of retainKeys"),
                Map.entry(spec("'volumes':[{'name':'v','configMap':{'name':'cm'},'$retainKeys':['name']}]"),
                        "400 BadRequest invalid patch format of retainKeys"),
                Map.entry("{'metadata':{'finalizers':[{'a':1}]}}",
                        "500 null list element types are not identical: [[a/x b/y] [map[a:1]]]"),
                Map.entry("[]", "400 BadRequest json: cannot unmarshal array into Go value of type map[string]interface {}"),
                Map.entry("'x'", "400 BadRequest json: cannot unmarshal string into Go value of type map[string]interface {}"));

        answers.forEach((patch, answer) -> assertThatThrownBy(() -> patch(patch))
                .as(patch)
                .isInstanceOfSatisfying(ApiError.class, e ->
                        assertThat(e.code() + " " + e.reason() + " " + e.getMessage()).isEqualTo(answer)));
    }

    @Test
    void listsOfListsAndOrdersOfUnknownFieldsAreRefused() {
        assertThatThrownBy(() -> StrategicMergePatch.apply(DEPLOYMENTS, node("{'metadata':{'finalizers':[]}}"),
                node("{'metadata':{'finalizers':[['a']]}}")))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.code() + " " + e.reason()).isEqualTo("422 Invalid"));
        assertThatThrownBy(() -> patch(spec("'$setElementOrder/nope':[{'name':'app'}]")))
                .isInstanceOfSatisfying(ApiError.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(e.getMessage()).contains("unable to find api field", "\"nope\"");
                });
    }

    @Test
    void aBuiltInKindWithoutADocumentInTheTestKitIsRefusedWith501() {
        Kind jobs = new Kind(ResourceType.dynamic("batch", "v1", "jobs", "Job", true), true, null, 10, 0);

        assertThatThrownBy(() -> StrategicMergePatch.apply(jobs, node("{'spec':{}}"), node("{'spec':{}}")))
                .isInstanceOfSatisfying(ApiError.class, e -> {
                    assertThat(e.code()).isEqualTo(501);
                    assertThat(e.getMessage()).contains("no OpenAPI document of batch/v1", "lists of Job");
                });
    }

    /** The patched deployment; asserts that no {@code $} key is left in it. */
    private static JsonNode patch(String patch) {
        JsonNode original = node(DEPLOYMENT);
        JsonNode result = StrategicMergePatch.apply(DEPLOYMENTS, original, node(patch));
        assertThat(original).as("the original is left unchanged").isEqualTo(node(DEPLOYMENT));
        assertThat(dollarKeys(result)).isEmpty();
        return result;
    }

    private static List<String> dollarKeys(JsonNode node) {
        List<String> found = new ArrayList<>();
        if (node.isObject()) {
            node.properties().forEach(e -> {
                if (e.getKey().startsWith("$")) {
                    found.add(e.getKey());
                }
                found.addAll(dollarKeys(e.getValue()));
            });
        } else if (node.isArray()) {
            node.forEach(item -> found.addAll(dollarKeys(item)));
        }
        return found;
    }

    private static List<String> containers(JsonNode deployment) {
        List<String> names = new ArrayList<>();
        deployment.at("/spec/template/spec/containers")
                .forEach(c -> names.add(c.path("name").asString() + " " + c.path("image").asString()));
        return names;
    }

    private static List<String> finalizers(String patch) {
        List<String> names = new ArrayList<>();
        patch(patch).at("/metadata/finalizers").forEach(f -> names.add(f.asString()));
        return names;
    }

    private static String spec(String fields) {
        return "{'spec':{'template':{'spec':{" + fields + "}}}}";
    }

    private static String containersPatch(String containers) {
        return spec("'containers':" + containers);
    }

    private static JsonNode node(String json) {
        return JSON.readTree(json(json));
    }

    /** JSON written with single quotes, for readability. */
    private static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }
}

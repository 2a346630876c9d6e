package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

const pod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"%[1]s","namespace":"ns-1","uid":"u-%[1]s",` +
	`"resourceVersion":"%[2]s","creationTimestamp":"2026-11-01T10:00:00Z","labels":{"app":"a"},` +
	`"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"2026-11-01T10:00:00Z",` +
	`"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},` +
	`"spec":{"containers":[{"name":"c","image":"i:1","resources":{"requests":{"cpu":"250m","memory":"64Mi"}},` +
	`"ports":[{"containerPort":8080,"protocol":"TCP"}]}]},"status":{"phase":"Running","podIP":"10.1.0.%[2]s"}}`

func podJSON(name, rv string) string {
	return fmt.Sprintf(pod, name, rv)
}

// corpus writes a small corpus in Corpus.java's on-disk form: the list, one event a line, the properties.
func corpus(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	list := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1003"},"items":[` +
		podJSON("p1", "1001") + "," + podJSON("p2", "1002") + `]}`
	watch := `{"type":"MODIFIED","object":` + podJSON("p1", "1004") + "}\n" +
		`{"type":"ADDED","object":` + strings.Replace(podJSON("p3", "1005"), `"phase"`, extra+`"phase"`, 1) + "}\n" +
		`{"type":"DELETED","object":` + podJSON("p2", "1006") + "}\n" +
		`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"1006"}}}` + "\n"
	props := "#side-by-side corpus\nn=2\nm=4\nseed=42\nlistResourceVersion=1003\nfinalResourceVersion=1006\n"
	for name, text := range map[string]string{listJSON: list, watchJSON: watch, corpusFile: props} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// frames splits a watch body at its 4-byte big-endian lengths, failing on a length that overruns the body.
func frames(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(body) > 0 {
		if len(body) < 4 {
			t.Fatalf("%d bytes left, no room for a length", len(body))
		}
		n := int(binary.BigEndian.Uint32(body))
		if 4+n > len(body) {
			t.Fatalf("frame of %d bytes, %d left", n, len(body)-4)
		}
		out = append(out, body[4:4+n])
		body = body[4+n:]
	}
	return out
}

// event decodes one frame as client-go does: the WatchEvent raw, its object from the k8s envelope.
func event(t *testing.T, frame []byte) (string, runtime.Object) {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	var e metav1.WatchEvent
	if _, _, err := info.StreamSerializer.Serializer.Decode(frame, nil, &e); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(e.Object.Raw, []byte("k8s\x00")) {
		t.Fatalf("embedded object without the k8s envelope: % x", e.Object.Raw[:min(8, len(e.Object.Raw))])
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(e.Object.Raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e.Type, obj
}

func TestConvertsListAndWatchInKubeApiserversEncoding(t *testing.T) {
	dir := corpus(t, "")
	converted, err := ensure(dir)
	if err != nil || !converted {
		t.Fatalf("converted %t, %v", converted, err)
	}
	list := read(t, dir, listPB)
	if !bytes.HasPrefix(list, []byte("k8s\x00")) {
		t.Fatalf("list without the k8s envelope: % x", list[:8])
	}
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(list, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pods := obj.(*corev1.PodList)
	if gvk.Kind != "PodList" || pods.ResourceVersion != "1003" || len(pods.Items) != 2 || pods.Items[1].Name != "p2" {
		t.Fatalf("list decoded as %v: rv %q, %d items", gvk, pods.ResourceVersion, len(pods.Items))
	}
	cpu := pods.Items[0].Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	if cpu.MilliValue() != 250 || string(pods.Items[0].ManagedFields[0].FieldsV1.Raw) != `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}` {
		t.Fatalf("quantity %v, fieldsV1 %s", cpu, pods.Items[0].ManagedFields[0].FieldsV1.Raw)
	}

	watch := frames(t, read(t, dir, watchPB))
	wantTypes := []string{"MODIFIED", "ADDED", "DELETED", "BOOKMARK"}
	wantVersions := []string{"1004", "1005", "1006", "1006"}
	if len(watch) != len(wantTypes) {
		t.Fatalf("%d frames, want %d", len(watch), len(wantTypes))
	}
	for i, frame := range watch {
		eventType, obj := event(t, frame)
		p, ok := obj.(*corev1.Pod)
		if eventType != wantTypes[i] || !ok || p.ResourceVersion != wantVersions[i] {
			t.Fatalf("frame %d: %s %T, want %s of a pod at %s", i, eventType, obj, wantTypes[i], wantVersions[i])
		}
	}

	bookmark := frames(t, read(t, dir, bookmarkPB))
	if eventType, obj := event(t, bookmark[0]); len(bookmark) != 1 || eventType != "BOOKMARK" || obj.(*corev1.Pod).ResourceVersion != "1006" {
		t.Fatalf("keep-alive bookmark: %d frames, %s %v", len(bookmark), eventType, obj)
	}
	expired := frames(t, read(t, dir, expiredPB))
	eventType, obj := event(t, expired[0])
	status, ok := obj.(*metav1.Status)
	if len(expired) != 1 || eventType != "ERROR" || !ok || status.Code != 410 || status.Reason != metav1.StatusReasonExpired ||
		status.Message != "too old resource version: 1003" {
		t.Fatalf("expired: %d frames, %s %v", len(expired), eventType, obj)
	}
	obj, _, err = scheme.Codecs.UniversalDeserializer().Decode(read(t, dir, emptyPB), nil, nil)
	if err != nil || obj.(*corev1.PodList).ResourceVersion != "1006" || len(obj.(*corev1.PodList).Items) != 0 {
		t.Fatalf("empty list: %v %v", obj, err)
	}
}

func TestSkipsAConvertedCorpusAndRedoesARegeneratedOne(t *testing.T) {
	dir := corpus(t, "")
	if _, err := ensure(dir); err != nil {
		t.Fatal(err)
	}
	if converted, err := ensure(dir); err != nil || converted {
		t.Fatalf("second conversion of the same corpus: %t, %v", converted, err)
	}
	if err := os.WriteFile(filepath.Join(dir, corpusFile), append(read(t, dir, corpusFile), "#regenerated\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if converted, err := ensure(dir); err != nil || !converted {
		t.Fatalf("conversion of a regenerated corpus: %t, %v", converted, err)
	}
}

func TestRefusesAFieldTheGoTypesWouldDrop(t *testing.T) {
	dir := corpus(t, `"notAPodStatusField":"x",`)
	_, err := ensure(dir)
	if err == nil || !strings.Contains(err.Error(), "notAPodStatusField") {
		t.Fatalf("want an error naming the unknown field, got %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, marker)); !os.IsNotExist(statErr) {
		t.Fatalf("marker written for a failed conversion: %v", statErr)
	}
}

// Command corpus2pb writes the protobuf form of a side-by-side corpus (Corpus.java) next to its JSON, encoded
// by k8s.io/apimachinery's protobuf serializer as kube-apiserver encodes it, so that no encoder of the library
// under test judges its own decoder.
//
//	corpus2pb DIR...
//
// From DIR/list.json and DIR/watch.jsonl (one event a line) it writes:
//
//   - list.pb: the PodList in the "k8s\x00" envelope (runtime.Unknown with apiVersion v1, kind PodList);
//   - watch.pb: one frame per line of watch.jsonl, in order: a 4-byte big-endian length, then a
//     metav1.WatchEvent whose object is the enveloped pod (the "application/vnd.kubernetes.protobuf;stream=watch"
//     body; kube-apiserver encodes the event with the raw serializer, the object with the enveloped one);
//   - empty-list.pb: a PodList at the corpus' final resourceVersion without items (a namespaced LIST);
//   - bookmark.pb: one frame, a BOOKMARK at the final resourceVersion (the replay server's keep-alive);
//   - expired.pb: one frame, an ERROR with a 410 Expired Status for the list's resourceVersion;
//   - protobuf.properties: written last, with the SHA-256 of corpus.properties: a DIR whose marker matches is
//     skipped, so a corpus is converted once, as Corpus.java generates it once.
//
// JSON is decoded strictly (a field the Go types do not know fails the conversion instead of vanishing from the
// protobuf). Once written, the files are read back with the decoders client-go uses (the framer, the raw
// serializer for events, the enveloped one for objects) and every object is compared with its JSON decode
// (apimachinery's semantic equality); a difference fails the conversion.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"
)

const (
	listJSON   = "list.json"
	watchJSON  = "watch.jsonl"
	corpusFile = "corpus.properties"
	listPB     = "list.pb"
	watchPB    = "watch.pb"
	emptyPB    = "empty-list.pb"
	bookmarkPB = "bookmark.pb"
	expiredPB  = "expired.pb"
	marker     = "protobuf.properties"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: corpus2pb DIR...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		converted, err := ensure(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "corpus2pb %s: %v\n", dir, err)
			os.Exit(1)
		}
		if converted {
			fmt.Printf("converted %s\n", dir)
		}
	}
}

// codecs are kube-apiserver's encoders for core/v1 in protobuf and client-go's decoders for them.
type codecs struct {
	object, event runtime.Encoder
	objectDecoder runtime.Decoder
	eventDecoder  runtime.Decoder
	framer        runtime.Framer
}

func newCodecs() (*codecs, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("no protobuf serializer in client-go's scheme")
	}
	factory := scheme.Codecs.WithoutConversion()
	return &codecs{
		object:        factory.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion),
		event:         factory.EncoderForVersion(info.StreamSerializer.Serializer, corev1.SchemeGroupVersion),
		objectDecoder: info.Serializer,
		eventDecoder:  info.StreamSerializer.Serializer,
		framer:        info.StreamSerializer.Framer,
	}, nil
}

// ensure converts dir unless its marker says it holds the protobuf form of this very corpus; true if it converted.
func ensure(dir string) (bool, error) {
	properties, err := os.ReadFile(filepath.Join(dir, corpusFile))
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(properties)
	want := "corpusSha256=" + hex.EncodeToString(sum[:]) + "\n"
	if have, err := os.ReadFile(filepath.Join(dir, marker)); err == nil && string(have) == want {
		return false, nil
	}
	// a stale marker must not outlive a failed conversion of a regenerated corpus
	if err := os.Remove(filepath.Join(dir, marker)); err != nil && !os.IsNotExist(err) {
		return false, err
	}
	c, err := newCodecs()
	if err != nil {
		return false, err
	}
	props := parseProperties(string(properties))
	listRV, finalRV := props["listResourceVersion"], props["finalResourceVersion"]
	if listRV == "" || finalRV == "" {
		return false, fmt.Errorf("%s names no listResourceVersion or finalResourceVersion", corpusFile)
	}
	if err := c.convertList(dir); err != nil {
		return false, err
	}
	if err := c.convertWatch(dir); err != nil {
		return false, err
	}
	if err := c.writeExtras(dir, listRV, finalRV); err != nil {
		return false, err
	}
	if err := c.verify(dir); err != nil {
		return false, fmt.Errorf("read back: %w", err)
	}
	return true, os.WriteFile(filepath.Join(dir, marker), []byte(want), 0o644)
}

func parseProperties(text string) map[string]string {
	props := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(k, "#") {
			props[k] = v
		}
	}
	return props
}

// strictDecode decodes JSON into obj, failing on a field obj's type does not have (it would be lost).
func strictDecode(data []byte, obj any) error {
	strict, err := sigsjson.UnmarshalStrict(data, obj)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return fmt.Errorf("not representable in the Go types: %v", strict)
	}
	return nil
}

func (c *codecs) convertList(dir string) error {
	list, err := readList(dir)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, listPB), func(w io.Writer) error { return c.object.Encode(list, w) })
}

func readList(dir string) (*corev1.PodList, error) {
	data, err := os.ReadFile(filepath.Join(dir, listJSON))
	if err != nil {
		return nil, err
	}
	list := &corev1.PodList{}
	if err := strictDecode(data, list); err != nil {
		return nil, fmt.Errorf("%s: %w", listJSON, err)
	}
	return list, nil
}

// jsonEvent is one line of watch.jsonl; every object in it, bookmarks too, is a pod.
type jsonEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// eachJSONEvent calls f with every event of watch.jsonl, in order, the object decoded strictly.
func eachJSONEvent(dir string, f func(line int, eventType string, pod *corev1.Pod) error) error {
	in, err := os.Open(filepath.Join(dir, watchJSON))
	if err != nil {
		return err
	}
	defer in.Close()
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; lines.Scan(); line++ {
		var event jsonEvent
		if err := strictDecode(lines.Bytes(), &event); err != nil {
			return fmt.Errorf("%s line %d: %w", watchJSON, line, err)
		}
		pod := &corev1.Pod{}
		if err := strictDecode(event.Object, pod); err != nil {
			return fmt.Errorf("%s line %d: %w", watchJSON, line, err)
		}
		if err := f(line, event.Type, pod); err != nil {
			return err
		}
	}
	return lines.Err()
}

func (c *codecs) convertWatch(dir string) error {
	return writeFile(filepath.Join(dir, watchPB), func(w io.Writer) error {
		frames := c.framer.NewFrameWriter(w)
		return eachJSONEvent(dir, func(_ int, eventType string, pod *corev1.Pod) error {
			return c.writeEvent(frames, eventType, pod)
		})
	})
}

// writeEvent writes one frame as kube-apiserver's watch encoder does: the object through the enveloped encoder,
// then the WatchEvent carrying those bytes through the raw one, in one write to the framer.
func (c *codecs) writeEvent(frames io.Writer, eventType string, obj runtime.Object) error {
	var object, event bytes.Buffer
	if err := c.object.Encode(obj, &object); err != nil {
		return err
	}
	watchEvent := &metav1.WatchEvent{Type: eventType, Object: runtime.RawExtension{Raw: object.Bytes()}}
	if err := c.event.Encode(watchEvent, &event); err != nil {
		return err
	}
	_, err := frames.Write(event.Bytes())
	return err
}

func (c *codecs) writeExtras(dir, listRV, finalRV string) error {
	empty := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: finalRV}}
	if err := writeFile(filepath.Join(dir, emptyPB), func(w io.Writer) error { return c.object.Encode(empty, w) }); err != nil {
		return err
	}
	bookmark := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: finalRV}}
	if err := writeFile(filepath.Join(dir, bookmarkPB), func(w io.Writer) error {
		return c.writeEvent(c.framer.NewFrameWriter(w), "BOOKMARK", bookmark)
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, expiredPB), func(w io.Writer) error {
		return c.writeEvent(c.framer.NewFrameWriter(w), "ERROR", expired(listRV))
	})
}

// expired is the Status kube-apiserver ends a watch from a compacted resourceVersion with.
func expired(listRV string) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Reason:   metav1.StatusReasonExpired,
		Code:     410,
		Message:  "too old resource version: " + listRV,
	}
}

// writeFile writes path through a temporary file renamed at the end, so that a failed conversion leaves no
// partial file behind under the name the replay server reads.
func writeFile(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// verify reads the protobuf files back with client-go's decoders and compares every object with its JSON decode.
func (c *codecs) verify(dir string) error {
	want, err := readList(dir)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, listPB))
	if err != nil {
		return err
	}
	got := &corev1.PodList{}
	if _, _, err := c.objectDecoder.Decode(data, nil, got); err != nil {
		return fmt.Errorf("%s: %w", listPB, err)
	}
	if got.ResourceVersion != want.ResourceVersion || len(got.Items) != len(want.Items) {
		return fmt.Errorf("%s: resourceVersion %q and %d items, want %q and %d", listPB, got.ResourceVersion,
			len(got.Items), want.ResourceVersion, len(want.Items))
	}
	for i := range want.Items {
		// a protobuf list's items have no kind and apiVersion (the Pod message has no field for them); the JSON
		// corpus' items have them
		want.Items[i].TypeMeta = metav1.TypeMeta{}
		if !equality.Semantic.DeepEqual(&got.Items[i], &want.Items[i]) {
			return fmt.Errorf("%s: item %d (%s) differs from its JSON", listPB, i, want.Items[i].Name)
		}
	}
	f, err := os.Open(filepath.Join(dir, watchPB))
	if err != nil {
		return err
	}
	events := streaming.NewDecoder(c.framer.NewFrameReader(f), c.eventDecoder)
	defer events.Close()
	err = eachJSONEvent(dir, func(line int, eventType string, pod *corev1.Pod) error {
		event, err := c.readEvent(events)
		if err != nil {
			return fmt.Errorf("%s frame %d: %w", watchPB, line, err)
		}
		decoded, ok := event.object.(*corev1.Pod)
		if event.eventType != eventType || !ok || !equality.Semantic.DeepEqual(decoded, pod) {
			return fmt.Errorf("%s frame %d (%s %s) differs from line %d of %s", watchPB, line, event.eventType,
				pod.Name, line, watchJSON)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := c.readEvent(events); err != io.EOF {
		return fmt.Errorf("%s: more frames than %s has lines (%v)", watchPB, watchJSON, err)
	}
	return nil
}

// decodedEvent is one frame of a protobuf watch stream, its object decoded.
type decodedEvent struct {
	eventType string
	object    runtime.Object
}

func (c *codecs) readEvent(events streaming.Decoder) (decodedEvent, error) {
	var frame metav1.WatchEvent
	if _, _, err := events.Decode(nil, &frame); err != nil {
		return decodedEvent{}, err
	}
	object, _, err := c.objectDecoder.Decode(frame.Object.Raw, nil, nil)
	return decodedEvent{frame.Type, object}, err
}

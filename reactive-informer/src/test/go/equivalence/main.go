// Command equivalence writes objects of every kind of client-go's scheme (k8s.io/client-go/kubernetes/scheme)
// and of apidiscovery.k8s.io, filled with random values by Kubernetes' own fuzzer (the generic fill funcs of
// k8s.io/api's round-trip test), read back from their protobuf as kube-apiserver reads what it stores, then
// encoded by k8s.io/apimachinery's serializers as kube-apiserver serves them: in JSON, and in protobuf in its
// "k8s\x00" envelope. ProtobufJsonEquivalenceTest decodes both with the library and compares the models, so that
// no encoder of the library judges its own decoder.
//
//	equivalence [-n OBJECTS_PER_KIND] [-seed SEED] OUT_FILE
//
// OUT_FILE gets one JSON line per object, sorted by package, kind and index:
//
//	{"package":"api/apps/v1","kind":"Deployment","index":0,"json":"<the JSON text>","protobuf":"<base64>"}
//
// where package is the Go package's path under k8s.io/ (its last two elements name the .proto package the
// library's decoders come from). Each object's random source is seeded from SEED, the package, the kind and the
// index, so the file is the same bytes on every run and a kind added to the scheme leaves the others' objects as
// they were.
//
// Left out: WatchEvent, a watch stream's frame, not an object; the meta/v1 kinds every group version registers
// are written once, as core v1's. An object whose JSON and protobuf Go itself does not decode to semantically
// equal objects would be left out and named on stderr (none with k8s.io/api v0.36).
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

const (
	apiPackages  = "k8s.io/api/"
	metaPackage  = "k8s.io/apimachinery/pkg/apis/meta/v1"
	modulePrefix = "k8s.io/"
)

type line struct {
	Package  string `json:"package"`
	Kind     string `json:"kind"`
	Index    int    `json:"index"`
	JSON     string `json:"json"`
	Protobuf string `json:"protobuf"`
}

type kind struct {
	gvk schema.GroupVersionKind
	typ reflect.Type
	pkg string
}

func main() {
	perKind := flag.Int("n", 3, "objects per kind")
	seed := flag.Int64("seed", 33, "the seed of every object's random source")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: equivalence [-n OBJECTS_PER_KIND] [-seed SEED] OUT_FILE")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *perKind, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "equivalence: %v\n", err)
		os.Exit(1)
	}
}

func run(out string, perKind int, seed int64) error {
	// the discovery documents, which client-go's scheme leaves to its discovery client
	for _, add := range []func(*runtime.Scheme) error{apidiscoveryv2.AddToScheme, apidiscoveryv2beta1.AddToScheme} {
		if err := add(scheme.Scheme); err != nil {
			return err
		}
	}
	jsonInfo, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return fmt.Errorf("no JSON serializer in client-go's scheme")
	}
	pbInfo, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		return fmt.Errorf("no protobuf serializer in client-go's scheme")
	}
	codecs := scheme.Codecs.WithoutConversion()
	kinds, err := apiKinds()
	if err != nil {
		return err
	}
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	defer file.Close()
	w := bufio.NewWriter(file)
	written, dropped := 0, 0
	for _, k := range kinds {
		gv := k.gvk.GroupVersion()
		jsonCodec := codecs.EncoderForVersion(jsonInfo.Serializer, gv)
		pbCodec := codecs.EncoderForVersion(pbInfo.Serializer, gv)
		for i := 0; i < perKind; i++ {
			obj := reflect.New(k.typ).Interface().(runtime.Object)
			filler := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(objectSeed(seed, k, i)), scheme.Codecs)
			filler.Fill(obj)
			stored, err := runtime.Encode(pbCodec, obj)
			if err != nil {
				return fmt.Errorf("%s %d: protobuf: %w", k.gvk, i, err)
			}
			served, err := readBack(k, stored, pbInfo.Serializer)
			if err != nil {
				return fmt.Errorf("%s %d: %w", k.gvk, i, err)
			}
			jsonBytes, err := runtime.Encode(jsonCodec, served)
			if err != nil {
				return fmt.Errorf("%s %d: JSON: %w", k.gvk, i, err)
			}
			pbBytes, err := runtime.Encode(pbCodec, served)
			if err != nil {
				return fmt.Errorf("%s %d: protobuf: %w", k.gvk, i, err)
			}
			if err := sameInGo(k, jsonBytes, pbBytes, jsonInfo.Serializer, pbInfo.Serializer); err != nil {
				fmt.Fprintf(os.Stderr, "left out %s %d: %v\n", k.gvk, i, err)
				dropped++
				continue
			}
			encoded, err := json.Marshal(line{k.pkg, k.gvk.Kind, i, strings.TrimSuffix(string(jsonBytes), "\n"),
				base64.StdEncoding.EncodeToString(pbBytes)})
			if err != nil {
				return err
			}
			w.Write(encoded)
			w.WriteByte('\n')
			written++
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d kinds, %d objects written, %d left out\n", len(kinds), written, dropped)
	return nil
}

// apiKinds are the scheme's external kinds, in a stable order: k8s.io/api's, and meta/v1's once (as core v1's;
// the scheme registers them in every group version) but for WatchEvent, a watch stream's frame.
func apiKinds() ([]kind, error) {
	var kinds []kind
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || typ.Name() == "WatchEvent" {
			continue
		}
		if typ.PkgPath() == metaPackage && (gvk.Group != "" || gvk.Version != "v1") {
			continue
		}
		if !strings.HasPrefix(typ.PkgPath(), apiPackages) && typ.PkgPath() != metaPackage {
			return nil, fmt.Errorf("%s: a Go type of %s", gvk, typ.PkgPath())
		}
		kinds = append(kinds, kind{gvk, typ, strings.TrimPrefix(typ.PkgPath(), modulePrefix)})
	}
	sort.Slice(kinds, func(a, b int) bool {
		if kinds[a].pkg != kinds[b].pkg {
			return kinds[a].pkg < kinds[b].pkg
		}
		return kinds[a].gvk.Kind < kinds[b].gvk.Kind
	})
	return kinds, nil
}

func objectSeed(seed int64, k kind, index int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s/%d", seed, k.pkg, k.gvk.Kind, index)
	return int64(h.Sum64() >> 1)
}

// readBack is the object as kube-apiserver serves it: decoded from the protobuf it stores, with nil where the
// fuzzer left an empty slice or map (protobuf writes neither), and a list's nil items made empty as its storage
// does (a served list never says "items": null).
func readBack(k kind, stored []byte, pbDecoder runtime.Decoder) (runtime.Object, error) {
	obj := reflect.New(k.typ).Interface().(runtime.Object)
	if _, _, err := pbDecoder.Decode(stored, nil, obj); err != nil {
		return nil, fmt.Errorf("Go cannot decode its protobuf: %w", err)
	}
	if meta.IsListType(obj) {
		items, err := meta.GetItemsPtr(obj)
		if err != nil {
			return nil, err
		}
		if v := reflect.ValueOf(items).Elem(); v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		}
	}
	return obj, nil
}

// sameInGo fails when Go's own decoders disagree on the two encodings: such an object proves nothing of ours.
func sameInGo(k kind, jsonBytes, pbBytes []byte, jsonDecoder, pbDecoder runtime.Decoder) error {
	fromJSON := reflect.New(k.typ).Interface().(runtime.Object)
	fromPB := reflect.New(k.typ).Interface().(runtime.Object)
	if _, _, err := jsonDecoder.Decode(jsonBytes, nil, fromJSON); err != nil {
		return fmt.Errorf("Go cannot decode its JSON: %w", err)
	}
	if _, _, err := pbDecoder.Decode(pbBytes, nil, fromPB); err != nil {
		return fmt.Errorf("Go cannot decode its protobuf: %w", err)
	}
	if !equality.Semantic.DeepEqual(fromJSON, fromPB) {
		return fmt.Errorf("Go decodes its JSON and its protobuf differently")
	}
	return nil
}

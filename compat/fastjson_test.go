package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeJSON_Dialect(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{0:"a",1:"b"}`, `{"0":"a","1":"b"}`},
		{`{-1:2.5e3,10:0}`, `{"-1":2.5e3,"10":0}`},
		{`{abc:1,true:2,null:3,$x_1:4}`, `{"abc":1,"true":2,"null":3,"$x_1":4}`},
		{`{{"brokerName":"b","queueId":0,"topic":"T"}:100}`,
			`{"{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}":100}`},
		// A pretty-printed object key becomes compact text; nested unquoted keys are fixed too.
		{"{{\n\t\"a\" : {1:2},\n\t\"b\":[ 1, 2 ]\n}:1}", `{"{\"a\":{\"1\":2},\"b\":[1,2]}":1}`},
		{`{[1,2]:"arr"}`, `{"[1,2]":"arr"}`},
		{`{'k':'it\'s "q"'}`, `{"k":"it's \"q\""}`},
		{"[\"raw\x01ctl\"]", `["raw\u0001ctl"]`},
		{"{\n\t\"offsetTable\":{0:120,1:98\n\t}\n}", "{\n\t\"offsetTable\":{\"0\":120,\"1\":98\n\t}\n}"},
		{`  7 `, `  7 `},
	}
	for _, c := range cases {
		got, err := NormalizeJSON([]byte(c.in))
		if err != nil {
			t.Errorf("NormalizeJSON(%q): %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("NormalizeJSON(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("NormalizeJSON(%q) = %s is not valid JSON", c.in, got)
		}
	}
}

func TestNormalizeJSON_Invalid(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `{0x1:2}`, `{"a":1}x`, `tru`, `truex`,
		`01`, `1.`, `1e`, `-`, `"\x"`, `"\u12"`, `{#:1}`, `'open`, `[1 2]`, `{"a":1 "b":2}`} {
		if out, err := NormalizeJSON([]byte(in)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("NormalizeJSON(%q) = %q, %v; want ErrInvalidJSON", in, out, err)
		}
	}
	deep := strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1)
	if _, err := NormalizeJSON([]byte(deep)); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("too deep: err = %v, want ErrInvalidJSON", err)
	}
}

// The compact and pretty files fastjson wrote (both shapes Java brokers leave on disk)
// all normalize to standard JSON with the same content.
func TestNormalizeJSON_FastjsonGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/fastjson/*.compact.json")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		compact := readFile(t, f)
		pretty := readFile(t, strings.Replace(f, ".compact.", ".pretty.", 1))
		var a, b any
		for _, in := range []struct {
			data []byte
			v    *any
		}{{compact, &a}, {pretty, &b}} {
			norm, err := NormalizeJSON(in.data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := json.Unmarshal(norm, in.v); err != nil {
				t.Fatalf("%s: normalized output does not decode: %v\n%s", f, err, norm)
			}
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: compact and pretty forms differ after normalizing", f)
		}
	}
}

func TestNormalizeJSON_ConsumerOffset(t *testing.T) {
	norm, err := NormalizeJSON(readFile(t, "testdata/fastjson/consumerOffset.pretty.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		OffsetTable map[string]map[int32]int64 `json:"offsetTable"`
	}
	if err := json.Unmarshal(norm, &v); err != nil {
		t.Fatal(err)
	}
	if got := v.OffsetTable["TopicA@GroupA"][3]; got != 12345678901 {
		t.Errorf("offset = %d, want 12345678901", got)
	}
	if got, ok := v.OffsetTable["Empty@G"]; !ok || len(got) != 0 {
		t.Errorf("Empty@G = %v, %v", got, ok)
	}
}

func TestParseMessageQueueKey_FromResetOffsetBody(t *testing.T) {
	norm, err := NormalizeJSON(readFile(t, "testdata/fastjson/resetOffset.pretty.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := json.Unmarshal(norm, &v); err != nil {
		t.Fatal(err)
	}
	type mq struct {
		topic, broker string
		qid           int32
	}
	got := map[mq]int64{}
	for k, off := range v.OffsetTable {
		topic, broker, qid, err := ParseMessageQueueKey(k)
		if err != nil {
			t.Fatalf("ParseMessageQueueKey(%q): %v", k, err)
		}
		got[mq{topic, broker, qid}] = off
	}
	want := map[mq]int64{{"T", "b", 0}: 100, {`T"q`, "b", 1}: 200}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParseMessageQueueKey_Forms(t *testing.T) {
	topic, broker, qid, err := ParseMessageQueueKey(`{brokerName:'b',queueId:7,topic:'T'}`)
	if err != nil || topic != "T" || broker != "b" || qid != 7 {
		t.Errorf("got %q %q %d %v", topic, broker, qid, err)
	}
	for _, bad := range []string{``, `[1]`, `"x"`, `{"queueId":"x"}`, `{"queueId":1e99}`} {
		if _, _, _, err := ParseMessageQueueKey(bad); !errors.Is(err, ErrBadMessageQueueKey) {
			t.Errorf("ParseMessageQueueKey(%q) err = %v, want ErrBadMessageQueueKey", bad, err)
		}
	}
}

func TestAppendMessageQueueKey_FastjsonGolden(t *testing.T) {
	// Rebuild ResetOffsetBody's compact text with our key writer.
	b := []byte(`{"offsetTable":{`)
	b = AppendMessageQueueKey(b, "b", 0, "T")
	b = append(b, ":100,"...)
	b = AppendMessageQueueKey(b, "b", 1, `T"q`)
	b = append(b, ":200}}"...)
	if want := readFile(t, "testdata/fastjson/resetOffset.compact.json"); !bytes.Equal(b, want) {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// PrettyFastJSON(compact) must be byte-identical to what fastjson itself wrote with
// PrettyFormat for the same object.
func TestPrettyFastJSON_FastjsonGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/fastjson/*.compact.json")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		compact := readFile(t, f)
		want := readFile(t, strings.Replace(f, ".compact.", ".pretty.", 1))
		pretty := PrettyFastJSON
		if strings.Contains(f, "lists") {
			pretty = PrettyFastJSONLists
		}
		if got := pretty(compact); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", f, got, want)
		}
		// Already pretty input is laid out the same way again.
		if got := pretty(want); !bytes.Equal(got, want) {
			t.Errorf("%s: re-prettifying changed the layout:\n got %q", f, got)
		}
	}
}

func TestPrettyFastJSON_InvalidUnchanged(t *testing.T) {
	for _, in := range []string{`{"a":`, `{"a" 1}`, `[1,2`, `{"a":1}}`, `"open`, ``} {
		if got := PrettyFastJSON([]byte(in)); string(got) != in {
			t.Errorf("PrettyFastJSON(%q) = %q, want input unchanged", in, got)
		}
	}
}

func FuzzNormalizeJSON(f *testing.F) {
	f.Add([]byte(`{"offsetTable":{"TopicA@GroupA":{0:120,1:98}}}`)) // consumerOffset.json
	f.Add([]byte(`{"offsetTable":{1:0,2:15}}`))                     // delayOffset.json
	f.Add([]byte(`{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:100}}`))
	f.Add([]byte(`{'single':'quoted \' "x"'}`))
	f.Add([]byte(`{"std":[1,-2.5e+3,true,false,null,"\u00e9\n"]}`))
	f.Add([]byte("{\n\t\"pretty\":{0:1\n\t}\n}"))
	f.Add([]byte(`{[1,{"k":2}]:3}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := NormalizeJSON(in)
		if json.Valid(in) {
			// Standard JSON passes through byte for byte.
			if err != nil {
				t.Fatalf("valid JSON rejected: %v", err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("valid JSON changed:\n in %q\nout %q", in, out)
			}
			return
		}
		if err == nil && !json.Valid(out) {
			t.Fatalf("output is not valid JSON:\n in %q\nout %q", in, out)
		}
		if err == nil {
			// Normalizing again changes nothing.
			again, err := NormalizeJSON(out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
			}
		}
	})
}

func FuzzPrettyFastJSON(f *testing.F) {
	f.Add([]byte(`{"dataVersion":{"counter":1,"timestamp":2},"topicConfigTable":{"T":{"perm":6}}}`))
	f.Add([]byte(`{"offsetTable":{"T@G":{0:1,1:2}}}`))
	f.Add([]byte(`{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:100}}`))
	f.Add([]byte(`{"a":[1,[2,{"b":[]}]],"c":{}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, pretty := range []func([]byte) []byte{PrettyFastJSON, PrettyFastJSONLists} {
			out := pretty(in)
			a, errA := NormalizeJSON(in)
			if errA != nil {
				continue
			}
			b, errB := NormalizeJSON(out)
			if errB != nil {
				t.Fatalf("pretty output does not parse: %v\n in %q\nout %q", errB, in, out)
			}
			var va, vb any
			if json.Unmarshal(a, &va) != nil {
				continue // e.g. numbers out of float64 range
			}
			if err := json.Unmarshal(b, &vb); err != nil || !reflect.DeepEqual(va, vb) {
				t.Fatalf("content changed:\n in %q\nout %q", in, out)
			}
		}
	})
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

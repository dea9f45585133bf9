package eventjson

import (
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/google/uuid"
)

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `q"uote\back`, "<a&b>", "tab\tnl\ncr\r\x00\x1f\x7f", "é✓😀", "\u2028\u2029", "bad\xffutf8\xc3", "\xed\xa0\x80"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.Intn(12))
		for j := range b {
			b[j] = byte(rng.Intn(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
		if got := AppendString(nil, []byte(s)); string(got) != string(want) {
			t.Fatalf("%q bytes: got %s, want %s", s, got, want)
		}
	}
}

func TestAppendGUID(t *testing.T) {
	if got := string(AppendGUID(nil, uuid.MustParse("9E814AAD-3204-11D2-9A82-006008A86939"))); got != "{9e814aad-3204-11d2-9a82-006008a86939}" {
		t.Error(got)
	}
}

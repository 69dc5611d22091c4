// Command quantity writes test/data/quantity_vectors.json: inputs for
// Attune's C++ Quantity with the answers of the real k8s resource.Quantity,
// so the C++ port is checked against upstream rather than against itself.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"strings"

	inf "gopkg.in/inf.v0"
	"k8s.io/apimachinery/pkg/api/resource"
)

type parseCase struct {
	In     string `json:"in"`
	OK     bool   `json:"ok"`
	String string `json:"string,omitempty"`
	Format string `json:"format,omitempty"`
	// Milli is upstream MilliValue(), present only when it equals the exact
	// ceil-away-from-zero of q*1000 and fits int64 (upstream silently wraps
	// on overflow and rounds some negatives differently by code path).
	Milli *string `json:"milli,omitempty"`
	Err   string  `json:"err,omitempty"`
	// Huge marks |q| >= 1e29: beyond Attune's 128-bit nano range, where the
	// C++ port answers out_of_range instead of a value.
	Huge bool `json:"huge,omitempty"`
}

type binCase struct {
	A   string `json:"a"`
	B   string `json:"b"`
	Cmp int    `json:"cmp"`
	Sum string `json:"sum"`
	Sub string `json:"diff"`
}

type vectors struct {
	Source string      `json:"source"`
	Parse  []parseCase `json:"parse"`
	Binary []binCase   `json:"binary"`
}

var edge = []string{
	"0", "-0", "+0", "00", "0.0", "1", "+1", "-1", "01", "001Ki", "1.5", "0.1", "1500m", "1024Mi", "1Gi",
	"1Ki", "8Ki", "1023", "1024", "1025", "-1024", "-1025", "1.5Gi", "0.5Gi", "1.1Ki", "0.0001Ki", "1e3",
	"1E3", "1e-3", "1E-3", "1e+3", "1e0", "1e", "1E", "1.e3", ".5", "-.5", "1.", "1.G", "1.Pi", ".Pi", "Pi",
	"Mi", "k", "m", ".", "-", "+", "", " 1", "1 ", "1.2.3", "1K", "1ki", "1i", "1Ki3", "1e3e", "1e1.5",
	"100m", "100u", "100n", "1n", "0.1n", "1e-9", "1e-10", "1e-12", "-1e-12", "123456789012345678",
	"1234567890123456789", "12345678901234567890", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "9223372036854775807Ki", "8Ei", "7Ei", "1Ei", "16Ei", "1000E", "1E", "999E",
	"1000000E", "0.001E", "1000P", "1e18", "1e19", "1e20", "1e21", "1e28", "100000000000000000000000",
	"1.000000000000000000001", "0.000000000000000000001", "1.0000000001", "1.000000001", "1.00000001",
	"123.456", "123.456m", "123.456Ki", "1.5Ki", "1.25Mi", "0.5Mi", "512Ki", "1536Mi", "2048Mi", "1000Mi",
	"1000Ki", "1000000", "1000000m", "1000k", "1M", "1000M", "1G", "1T", "1P", "10", "100", "1000", "10000",
	"5e2", "50e1", "0.05e3", "1.5e3", "1.5e-3", "1e100", "1e-100", "1e2147483647", "1e4294967297",
	"1e9223372036854775807", "1e9223372036854775808", "12e-1", "2.5", "250m", "2500m", "0.25",
	"-1.5", "-1500m", "-1Ki", "-1.5Gi", "-0.5", "+1.5", "+1Ki", "+100m", "07", "0700m", "1.100", "1.10Ki",
	"3.14159265358979323846264338327950288", "1Ki1", "1Ti", "17Ti", "123Ti", "1234Ti", "12345Ti", "1Pi",
	"0.1Ei", "0.000000001Ei", "1m1", "1e-3m", "1ee3", "1e+", "1e-", "--1", "+-1", "1-", "1+", "0x10",
	"1,5", "1_000", "१", "1.5.", "1e3.0",
}

func classify(q resource.Quantity) string {
	return string(q.Format)
}

func exactMilli(q resource.Quantity) (*big.Int, bool) {
	// exact rational of q, times 1000, rounded away from zero. Absurd
	// exponents (1e2147483647 parses upstream) would need gigabytes here.
	if d := q.AsDec(); d.Scale() < -40 || d.Scale() > 40 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(q.AsDec().String())
	if !ok {
		return nil, false
	}
	r.Mul(r, big.NewRat(1000, 1))
	num, den := r.Num(), r.Denom()
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Sign() > 0 {
		quo.Add(quo, big.NewInt(1))
	} else if rem.Sign() < 0 {
		quo.Sub(quo, big.NewInt(1))
	}
	return quo, quo.IsInt64()
}

func isHuge(in string) bool {
	q := resource.MustParse(in)
	d := q.AsDec()
	if d.Scale() < -40 {
		return true
	}
	if d.Scale() > 40 {
		return false
	}
	abs := new(inf.Dec).Abs(d)
	return abs.Cmp(inf.NewDec(1, -29)) >= 0
}

// saneScale keeps absurd exponents out of the arithmetic pairs: upstream
// Add on 1e2147483647 loops for a very long time.
func saneScale(in string) bool {
	q := resource.MustParse(in)
	d := q.AsDec()
	return d.Scale() >= -40 && d.Scale() <= 40
}

func parse(in string) parseCase {
	c := parseCase{In: in}
	q, err := resource.ParseQuantity(in)
	if err != nil {
		c.Err = err.Error()
		return c
	}
	c.OK = true
	c.Format = classify(q)
	c.Huge = isHuge(in)
	m := q.MilliValue()
	q2, _ := resource.ParseQuantity(in)
	if exact, ok := exactMilli(q2); ok && exact.Int64() == m {
		s := fmt.Sprint(m)
		c.Milli = &s
	}
	c.String = q.String()
	return c
}

func digits(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + r.Intn(10)))
	}
	return b.String()
}

var suffixes = []string{"", "", "", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
	"e3", "e-3", "E6", "e+2", "e-9", "e-12", "e0", "E-1", "e18", "e20", "K", "i", "mi", "e", "kk"}

func randomInput(r *rand.Rand) string {
	var b strings.Builder
	switch r.Intn(10) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	if r.Intn(8) == 0 {
		b.WriteString(strings.Repeat("0", 1+r.Intn(3)))
	}
	// Weighted to short numbers (the realistic case) with a tail of long ones.
	n := r.Intn(5)
	if r.Intn(4) == 0 {
		n = r.Intn(22)
	}
	b.WriteString(digits(r, n))
	if r.Intn(3) == 0 {
		b.WriteByte('.')
		f := r.Intn(4)
		if r.Intn(4) == 0 {
			f = r.Intn(14)
		}
		b.WriteString(digits(r, f))
	}
	if r.Intn(6) == 0 {
		b.WriteString(fmt.Sprintf("e%d", r.Intn(41)-20))
	} else {
		b.WriteString(suffixes[r.Intn(len(suffixes))])
	}
	return b.String()
}

func main() {
	out := flag.String("out", "quantity_vectors.json", "output file")
	n := flag.Int("n", 4000, "number of random parse inputs")
	pairs := flag.Int("pairs", 1500, "number of random arithmetic pairs")
	flag.Parse()
	r := rand.New(rand.NewSource(20261129))

	v := vectors{Source: "k8s.io/apimachinery v0.36.3 pkg/api/resource (ParseQuantity, String, MilliValue, Cmp, Add, Sub)"}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			v.Parse = append(v.Parse, parse(s))
		}
	}
	for _, s := range edge {
		add(s)
	}
	for len(v.Parse) < len(edge)+*n {
		add(randomInput(r))
	}
	var valid []string
	for _, c := range v.Parse {
		if c.OK && !c.Huge && len(c.String) < 30 && saneScale(c.In) {
			valid = append(valid, c.In)
		}
	}
	for i := 0; i < *pairs; i++ {
		a, b := valid[r.Intn(len(valid))], valid[r.Intn(len(valid))]
		qa, qb := resource.MustParse(a), resource.MustParse(b)
		sum := qa.DeepCopy()
		sum.Add(qb)
		diff := qa.DeepCopy()
		diff.Sub(qb)
		v.Binary = append(v.Binary, binCase{A: a, B: b, Cmp: qa.Cmp(qb), Sum: sum.String(), Sub: diff.String()})
	}
	f, err := os.Create(*out)
	if err != nil {
		panic(err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d parse and %d arithmetic vectors to %s\n", len(v.Parse), len(v.Binary), *out)
}

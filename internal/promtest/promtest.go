// Package promtest scrapes a Prometheus endpoint in tests and reads values from the
// parsed families (with the Prometheus text parser, not by matching text).
package promtest

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are parsed metric families by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs url and parses the Prometheus text format.
func Scrape(url string) (Families, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	return Parse(resp.Body)
}

// Parse parses the Prometheus text format.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	return Families(fams), nil
}

// Labels renders a metric's labels as k=v pairs in name order.
func Labels(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// find returns the metric of family name whose labels include every k=v in kv
// (pairs), and whether there is exactly one such.
func (f Families) find(name string, kv ...string) (*dto.Metric, error) {
	fam := f[name]
	if fam == nil {
		return nil, fmt.Errorf("no metric family %s", name)
	}
	var found []*dto.Metric
	for _, m := range fam.GetMetric() {
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			has := false
			for _, l := range m.GetLabel() {
				if l.GetName() == kv[i] && l.GetValue() == kv[i+1] {
					has = true
				}
			}
			ok = ok && has
		}
		if ok {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%s%v: %d series match", name, kv, len(found))
	}
	return found[0], nil
}

// Value is the value of the one counter, gauge or untyped series of family name
// with the labels kv (name, value, name, value, …).
func (f Families) Value(name string, kv ...string) (float64, error) {
	m, err := f.find(name, kv...)
	if err != nil {
		return 0, err
	}
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue(), nil
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), nil
	case m.Untyped != nil:
		return m.GetUntyped().GetValue(), nil
	}
	return 0, fmt.Errorf("%s%v is not a counter or gauge", name, kv)
}

// Histogram is the one histogram series of family name with the labels kv.
func (f Families) Histogram(name string, kv ...string) (*dto.Histogram, error) {
	m, err := f.find(name, kv...)
	if err != nil {
		return nil, err
	}
	if m.Histogram == nil {
		return nil, fmt.Errorf("%s%v is not a histogram", name, kv)
	}
	return m.GetHistogram(), nil
}

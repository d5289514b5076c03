package target

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// etcdPrefix is where kube-apiserver keeps its objects in etcd (its
// --etcd-prefix default); a custom resource's objects are under
// <prefix><group>/<plural>/[<namespace>/]<name>.
const etcdPrefix = "/registry/"

// storedCRs asks the local server's etcd (its JSON gateway at url, keys
// only, one request) which custom resources have objects: the keys are
// "<group>/<plural>" for any object, "<group>/<plural>/<namespace>" for
// namespaced ones. Listing every resource through kube-apiserver instead
// makes it build the storage of every CRD on first use (seconds with the
// k0rdent release's 86): with this, only the few that hold objects are
// listed.
func storedCRs(ctx context.Context, url string) (map[string]bool, error) {
	end := []byte(strings.TrimSuffix(etcdPrefix, "/"))
	end = append(end, '/'+1)
	body, err := json.Marshal(map[string]any{
		"key":       base64.StdEncoding.EncodeToString([]byte(etcdPrefix)),
		"range_end": base64.StdEncoding.EncodeToString(end),
		"keys_only": true,
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(url, "/")+"/v3/kv/range", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("etcd keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("etcd keys: %s", resp.Status)
	}
	var out struct {
		Kvs []struct {
			Key []byte `json:"key"` // base64 in JSON, decoded by encoding/json
		} `json:"kvs"`
		More bool `json:"more"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("etcd keys: %w", err)
	}
	if out.More {
		return nil, fmt.Errorf("etcd keys: the answer was cut short")
	}
	keys := make([]string, len(out.Kvs))
	for i, kv := range out.Kvs {
		keys[i] = string(kv.Key)
	}
	return crKeys(keys), nil
}

// crKeys maps etcd keys to the "<group>/<plural>" and
// "<group>/<plural>/<namespace>" storedCRs reports. Keys of built-in
// resources map to entries no CRD has (their first segment has no dot,
// or they are looked up only for CRDs): harmless.
func crKeys(keys []string) map[string]bool {
	have := map[string]bool{}
	for _, k := range keys {
		parts := strings.Split(strings.TrimPrefix(k, etcdPrefix), "/")
		if !strings.HasPrefix(k, etcdPrefix) || len(parts) < 3 || !strings.Contains(parts[0], ".") {
			continue
		}
		have[parts[0]+"/"+parts[1]] = true
		if len(parts) == 4 {
			have[parts[0]+"/"+parts[1]+"/"+parts[2]] = true
		}
	}
	return have
}

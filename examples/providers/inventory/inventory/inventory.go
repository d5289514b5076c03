package inventory

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Machine is a machine of the inventory.
type Machine struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	Zone    string `json:"zone"`
	CPU     int32  `json:"cpu"`
	// Owner is who claimed it ("" when free).
	Owner string `json:"owner,omitempty"`
}

// Claim asks for a machine.
type Claim struct {
	// Owner identifies the claimer (namespace/name of the InventoryMachine).
	Owner  string `json:"owner"`
	Zone   string `json:"zone,omitempty"`
	MinCPU int32  `json:"minCPU,omitempty"`
}

// ErrNoMachine is returned when no free machine fits a claim.
var ErrNoMachine = errors.New("no free machine fits the claim")

// Server serves the inventory API from a fixed pool.
type Server struct {
	token string
	mu    sync.Mutex
	pool  []Machine
}

// NewServer returns a server of the machines, requiring token.
func NewServer(token string, machines []Machine) *Server {
	return &Server{token: token, pool: slices.Clone(machines)}
}

// Pool returns n machines spread over zones, with addresses 10.10.0.<i>.
func Pool(n int, zones []string) []Machine {
	var out []Machine
	for i := 0; i < n; i++ {
		out = append(out, Machine{ID: fmt.Sprintf("m-%03d", i+1), Address: fmt.Sprintf("10.10.0.%d", i+10), Zone: zones[i%len(zones)], CPU: int32(2 + 2*(i%3))})
	}
	return out
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		w.WriteHeader(http.StatusOK)
		return
	}
	got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/zones":
		var zones []string
		for _, m := range s.pool {
			if !slices.Contains(zones, m.Zone) {
				zones = append(zones, m.Zone)
			}
		}
		writeJSON(w, http.StatusOK, zones)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/machines":
		writeJSON(w, http.StatusOK, s.pool)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/claims":
		var c Claim
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&c); err != nil || c.Owner == "" {
			http.Error(w, "want a JSON claim with an owner", http.StatusBadRequest)
			return
		}
		for _, m := range s.pool {
			if m.Owner == c.Owner {
				writeJSON(w, http.StatusOK, m)
				return
			}
		}
		for i, m := range s.pool {
			if m.Owner == "" && (c.Zone == "" || m.Zone == c.Zone) && m.CPU >= c.MinCPU {
				s.pool[i].Owner = c.Owner
				writeJSON(w, http.StatusCreated, s.pool[i])
				return
			}
		}
		http.Error(w, ErrNoMachine.Error(), http.StatusConflict)
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/v1/claims/"):
		owner, err := url.PathUnescape(strings.TrimPrefix(r.URL.Path, "/v1/claims/"))
		if err != nil {
			http.Error(w, "bad owner", http.StatusBadRequest)
			return
		}
		for i, m := range s.pool {
			if m.Owner == owner {
				s.pool[i].Owner = ""
			}
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Client calls an inventory API.
type Client struct {
	URL   string
	token string
	HTTP  *http.Client
}

// NewClient returns a client of the API at url with the token. The
// token is kept private: it is never part of an error or a log line.
func NewClient(url, token string) *Client {
	return &Client{URL: strings.TrimSuffix(url, "/"), token: token, HTTP: &http.Client{Timeout: 10 * time.Second}}
}

// Zones lists the inventory's zones.
func (c *Client) Zones(ctx context.Context) ([]string, error) {
	var z []string
	return z, c.do(ctx, http.MethodGet, "/v1/zones", nil, &z)
}

// Machines lists every machine.
func (c *Client) Machines(ctx context.Context) ([]Machine, error) {
	var m []Machine
	return m, c.do(ctx, http.MethodGet, "/v1/machines", nil, &m)
}

// Claim claims a machine for the owner (the same one on every call).
func (c *Client) Claim(ctx context.Context, claim Claim) (*Machine, error) {
	var m Machine
	if err := c.do(ctx, http.MethodPost, "/v1/claims", claim, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// Release returns the owner's machine to the pool.
func (c *Client) Release(ctx context.Context, owner string) error {
	return c.do(ctx, http.MethodDelete, "/v1/claims/"+url.PathEscape(owner), nil, nil)
}

// StatusError is an API error response.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string { return fmt.Sprintf("inventory API: %d %s", e.Code, e.Message) }

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, body)
	if err != nil {
		return fmt.Errorf("inventory API %s: %w", c.URL, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("inventory API %s %s: %w", method, path, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		if resp.StatusCode == http.StatusConflict {
			return fmt.Errorf("%w: %s", ErrNoMachine, strings.TrimSpace(string(msg)))
		}
		return &StatusError{Code: resp.StatusCode, Message: strings.TrimSpace(string(msg))}
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

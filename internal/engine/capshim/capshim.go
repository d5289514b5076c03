package capshim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// names are the capabilities Linux defines, by number
// (include/uapi/linux/capability.h), as the OCI spec spells them.
var names = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

// Name is the OCI name of capability number n ("CAP_SYS_RESOURCE" for 24).
func Name(n int) string {
	if n >= 0 && n < len(names) {
		return names[n]
	}
	return fmt.Sprintf("CAP_%d", n)
}

// Bounding reads the CapBnd mask of a /proc/<pid>/status file.
func Bounding(status io.Reader) (uint64, error) {
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "CapBnd" {
			continue
		}
		m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return 0, fmt.Errorf("CapBnd %q: %w", strings.TrimSpace(v), err)
		}
		return m, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no CapBnd line")
}

// LastCap is the highest capability number the running kernel knows, from
// /proc/sys/kernel/cap_last_cap.
func LastCap() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// Missing lists, by OCI name and in number order, the capabilities from 0
// to last that the bounding set bnd lacks: the ones a privileged container
// asks for and cannot get.
func Missing(bnd uint64, last int) []string {
	var out []string
	for n := 0; n <= last && n < 64; n++ {
		if bnd&(1<<uint(n)) == 0 {
			out = append(out, Name(n))
		}
	}
	return out
}

// MissingHere is Missing for this process's bounding set and kernel.
func MissingHere() ([]string, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bnd, err := Bounding(f)
	if err != nil {
		return nil, fmt.Errorf("/proc/self/status: %w", err)
	}
	last, err := LastCap()
	if err != nil {
		return nil, err
	}
	return Missing(bnd, last), nil
}

// capSets are the fields of an OCI process's "capabilities" object.
var capSets = []string{"bounding", "effective", "inheritable", "permitted", "ambient"}

// Strip removes the capabilities in drop from every set of an OCI runtime
// spec (config.json: the sets are under process.capabilities) or of an
// OCI process file (runc exec --process: under capabilities). It returns
// the document unchanged, and removed false, when it names none of them.
// Every other field is kept as it was, numbers included.
func Strip(doc []byte, drop []string) (out []byte, removed []string, err error) {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, nil, fmt.Errorf("OCI spec: %w", err)
	}
	caps, _ := root["capabilities"].(map[string]any)
	if p, ok := root["process"].(map[string]any); ok {
		caps, _ = p["capabilities"].(map[string]any)
	}
	if caps == nil {
		return doc, nil, nil
	}
	gone := map[string]bool{}
	for _, set := range capSets {
		list, ok := caps[set].([]any)
		if !ok {
			continue
		}
		kept := make([]any, 0, len(list))
		for _, c := range list {
			if s, ok := c.(string); ok && contains(drop, s) {
				gone[s] = true
				continue
			}
			kept = append(kept, c)
		}
		caps[set] = kept
	}
	if len(gone) == 0 {
		return doc, nil, nil
	}
	for s := range gone {
		removed = append(removed, s)
	}
	sort.Strings(removed)
	out, err = json.Marshal(root)
	return out, removed, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SpecFile finds, in a runc command line, the OCI file that carries the
// container's capabilities: the bundle's config.json for create and run
// (--bundle, -b, else the working directory), the --process file for exec.
// It returns "" for every other command, and for an exec without
// --process (its capabilities come from the container's own spec, already
// stripped at create).
func SpecFile(args []string, wd string) string {
	cmd, rest := command(args)
	switch cmd {
	case "create", "run":
		bundle := wd
		if v, ok := flagValue(rest, "bundle", "b"); ok {
			bundle = v
		}
		return strings.TrimSuffix(bundle, "/") + "/config.json"
	case "exec":
		if v, ok := flagValue(rest, "process", "p"); ok {
			return v
		}
	}
	return ""
}

// runc's global flags that take a value (runc --help): the first argument
// that is neither one of these, nor a value, nor a flag is the command.
var globalWithValue = map[string]bool{"--root": true, "--log": true, "--log-format": true, "--criu": true, "--rootless": true}

func command(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:]
		}
		if globalWithValue[a] && !strings.Contains(a, "=") {
			i++
		}
	}
	return "", nil
}

// flagValue finds --long VALUE, --long=VALUE, -s VALUE or -s=VALUE among a
// command's arguments, before the first non-flag argument would end them
// (the container ID comes last).
func flagValue(args []string, long, short string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, name := range []string{"--" + long, "-" + long, "-" + short} {
			if a == name && i+1 < len(args) {
				return args[i+1], true
			}
			if strings.HasPrefix(a, name+"=") {
				return strings.TrimPrefix(a, name+"="), true
			}
		}
	}
	return "", false
}

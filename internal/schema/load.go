package schema

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

const crdKind = "CustomResourceDefinition"

// crdScheme knows the apiextensions.k8s.io types with their defaulting and
// conversion functions, as the API server's scheme does.
var crdScheme = func() *kruntime.Scheme {
	s := kruntime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
}()

// crdDecoder decodes apiextensions.k8s.io objects strictly: an unknown or
// duplicate field in a CRD is an error, as with kubectl's default strict
// field validation.
var crdDecoder = serializer.NewCodecFactory(crdScheme, serializer.EnableStrict).UniversalDeserializer()

// FromFiles loads CRDs from YAML files or directories (recursively,
// *.yaml|*.yml|*.json; multi-document files; non-CRD documents are
// ignored). Errors name the file (and document index, from 1).
//
// Each CRD is checked with the API server's own functions for what it
// would reject on create and what Validate needs (see validateCRD). A CRD
// that appears again (same metadata.name) replaces the earlier one, as
// applying the files in order would; two different CRDs for the same group
// and kind are an error. A document of kind List is searched for CRDs too
// (kubectl get crd -o yaml writes one).
func FromFiles(paths ...string) (*Validator, error) {
	crds, err := readFiles(paths)
	if err != nil {
		return nil, err
	}
	b := newBuilder()
	for _, c := range crds {
		b.add(c.crd, c.where, false)
	}
	return b.build()
}

// readFiles reads the CRDs of files and directories, in order.
func readFiles(paths []string) ([]sourcedCRD, error) {
	var files []string
	for _, p := range paths {
		more, err := expand(p)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	// Parsing large CRDs is most of the time FromFiles takes: read the
	// files in parallel, then add their CRDs in order.
	results := make([]fileResult, len(files))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i].crds, results[i].err = readFile(f)
		}()
	}
	wg.Wait()
	var crds []sourcedCRD
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		crds = append(crds, r.crds...)
	}
	return crds, nil
}

// Sourced is a CustomResourceDefinition another loader read (a k0rdent
// release's module trees), and where it came from.
type Sourced struct {
	CRD   *apiextensionsv1.CustomResourceDefinition
	Where string
}

// FromCRDs builds a Validator from CRDs read elsewhere, defaulted as the
// API server defaults them, then adds the CRDs in files as FromFiles reads
// them: a file's CRD with the same metadata.name replaces a given one. The
// given CRDs are a release's own, installed as they are by runbooks, and
// are not checked again.
func FromCRDs(crds []Sourced, files ...string) (*Validator, error) {
	b := newBuilder()
	for _, c := range crds {
		crd := c.CRD.DeepCopy()
		crdScheme.Default(crd)
		b.add(crd, c.Where, false)
	}
	more, err := readFiles(files)
	if err != nil {
		return nil, err
	}
	for _, c := range more {
		b.add(c.crd, c.where, false)
	}
	return b.build()
}

type fileResult struct {
	crds []sourcedCRD
	err  error
}

// sourcedCRD is a CRD and where it was read.
type sourcedCRD struct {
	crd   *apiextensionsv1.CustomResourceDefinition
	where string
}

// FromCluster reads every CRD served by a live cluster
// (apiextensions.k8s.io/v1 list). CRDs that are not Established are not
// served and are left out. The cluster already validated its CRDs, so they
// are not validated again (an old cluster may hold CRDs that today's rules
// would only accept as unchanged).
func FromCluster(ctx context.Context, cfg *rest.Config) (*Validator, error) {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("schema: client for %s: %w", cfg.Host, err)
	}
	b := newBuilder()
	opts := metav1.ListOptions{Limit: 250}
	for {
		list, err := client.ApiextensionsV1().CustomResourceDefinitions().List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("schema: list CustomResourceDefinitions at %s: %w", cfg.Host, err)
		}
		for i := range list.Items {
			crd := &list.Items[i]
			if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
				continue
			}
			b.add(crd, "the cluster at "+cfg.Host, true)
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	return b.build()
}

// expand returns the file p, or the *.yaml, *.yml and *.json files below the
// directory p in lexical order.
func expand(p string) ([]string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if !fi.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return files, nil
}

// builder collects CRDs in the order they are read.
type builder struct {
	crds  map[string]*crdInfo // by metadata.name
	order []string            // metadata.name, first appearance
}

func newBuilder() *builder {
	return &builder{crds: map[string]*crdInfo{}}
}

// readFile returns the CRDs in a file, validated.
func readFile(file string) ([]sourcedCRD, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	var crds []sourcedCRD
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return crds, nil
		}
		where := fmt.Sprintf("%s: document %d", file, doc)
		if err != nil {
			return nil, fmt.Errorf("schema: %s: %w", where, err)
		}
		if crds, err = readDocument(crds, raw, where); err != nil {
			return nil, err
		}
	}
}

// readDocument appends to crds the CRD in one YAML or JSON document, or the
// CRDs in a List; other documents are ignored.
func readDocument(crds []sourcedCRD, raw []byte, where string) ([]sourcedCRD, error) {
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", where, err)
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		return crds, nil // empty document, or only comments
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if js[0] != '{' {
		return crds, nil // a list or a scalar (a JSON patch, say): not an object
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, fmt.Errorf("schema: %s: %w", where, err)
	}
	gv, _ := schema.ParseGroupVersion(head.APIVersion) // malformed: not a CRD
	switch {
	case strings.HasSuffix(head.Kind, "List") && head.Items != nil:
		for i, item := range head.Items {
			var err error
			if crds, err = readDocument(crds, item, fmt.Sprintf("%s, item %d", where, i+1)); err != nil {
				return nil, err
			}
		}
		return crds, nil
	case gv.Group != apiextensionsv1.GroupName || head.Kind != crdKind:
		return crds, nil
	case gv.Version != apiextensionsv1.SchemeGroupVersion.Version:
		return nil, fmt.Errorf("schema: %s: %s %s is not served by Kubernetes since 1.22; use %s", where, head.APIVersion, crdKind, apiextensionsv1.SchemeGroupVersion)
	}
	obj, _, err := crdDecoder.Decode(js, nil, &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", where, err)
	}
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	crdScheme.Default(crd)
	if err := validateCRD(crd); err != nil {
		return nil, fmt.Errorf("schema: %s: %w", where, err)
	}
	return append(crds, sourcedCRD{crd, where}), nil
}

// validateCRD checks what the API server would reject in crd on create and
// what would keep Validate from using it: the names, and for each version a
// structural schema with valid defaults. It runs the server's own checks for
// these (ValidateStructural, ValidateDefaults), not the whole of its CRD
// validation, which would link the API server's webhook and tracing clients.
// CEL rules are compiled on first use; a rule that does not compile is then
// reported by Validate at the rule's path.
func validateCRD(crd *apiextensionsv1.CustomResourceDefinition) error {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if crd.Spec.Group == "" {
		errs = append(errs, field.Required(spec.Child("group"), ""))
	}
	if crd.Spec.Names.Plural == "" {
		errs = append(errs, field.Required(spec.Child("names", "plural"), ""))
	}
	if crd.Spec.Names.Kind == "" {
		errs = append(errs, field.Required(spec.Child("names", "kind"), ""))
	}
	if want := crd.Spec.Names.Plural + "." + crd.Spec.Group; crd.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name, `must be spec.names.plural+"."+spec.group`))
	}
	switch crd.Spec.Scope {
	case apiextensionsv1.NamespaceScoped, apiextensionsv1.ClusterScoped:
	default:
		errs = append(errs, field.NotSupported(spec.Child("scope"), crd.Spec.Scope, []apiextensionsv1.ResourceScope{apiextensionsv1.ClusterScoped, apiextensionsv1.NamespaceScoped}))
	}
	if crd.Spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(spec.Child("preserveUnknownFields"), true, "must be false"))
	}
	if len(crd.Spec.Versions) == 0 {
		errs = append(errs, field.Required(spec.Child("versions"), "must have exactly one version marked as storage version"))
	}
	for i, ver := range crd.Spec.Versions {
		p := spec.Child("versions").Index(i).Child("schema", "openAPIV3Schema")
		if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(p, "schemas are required"))
			continue
		}
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(ver.Schema, internal, nil); err != nil {
			errs = append(errs, field.Invalid(p, "", err.Error()))
			continue
		}
		ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			errs = append(errs, field.Invalid(p, "", err.Error()))
			continue
		}
		if verrs := structuralschema.ValidateStructural(p, ss); len(verrs) > 0 {
			errs = append(errs, verrs...)
			continue
		}
		verrs, err := structuraldefaulting.ValidateDefaults(context.Background(), p, ss, true, true)
		if err != nil {
			errs = append(errs, field.Invalid(p, "", err.Error()))
		}
		errs = append(errs, verrs...)
	}
	if len(errs) > 0 {
		return fmt.Errorf("CustomResourceDefinition %q is invalid: %w", crd.Name, errs.ToAggregate())
	}
	return nil
}

// add records crd, read from where. fromCluster says to take the names the
// server accepted rather than the requested ones.
func (b *builder) add(crd *apiextensionsv1.CustomResourceDefinition, where string, fromCluster bool) {
	names := crd.Spec.Names
	if fromCluster && crd.Status.AcceptedNames.Kind != "" {
		names = crd.Status.AcceptedNames
	}
	info := &crdInfo{
		crd:        crd,
		source:     where,
		kind:       names.Kind,
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}
	if _, ok := b.crds[crd.Name]; !ok {
		b.order = append(b.order, crd.Name)
	}
	b.crds[crd.Name] = info
}

// build indexes the CRDs by group, version and kind.
func (b *builder) build() (*Validator, error) {
	v := &Validator{
		versions:   map[schema.GroupVersionKind]*kindVersion{},
		groupKinds: map[schema.GroupKind]*crdInfo{},
	}
	for _, name := range b.order {
		info := b.crds[name]
		gk := schema.GroupKind{Group: info.crd.Spec.Group, Kind: info.kind}
		if other, ok := v.groupKinds[gk]; ok {
			return nil, fmt.Errorf("schema: %s and %s (CustomResourceDefinitions %s and %s) both define kind %s in group %s",
				other.source, info.source, other.crd.Name, info.crd.Name, gk.Kind, gk.Group)
		}
		v.groupKinds[gk] = info
		for _, ver := range info.crd.Spec.Versions {
			if !ver.Served {
				continue
			}
			info.served = append(info.served, ver.Name)
			gvk := gk.WithVersion(ver.Name)
			v.versions[gvk] = &kindVersion{info: info, gvk: gvk}
			v.kinds = append(v.kinds, gvk)
		}
	}
	sort.Slice(v.kinds, func(i, j int) bool {
		a, b := v.kinds[i], v.kinds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Version < b.Version
	})
	return v, nil
}

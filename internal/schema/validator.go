package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/storage/names"
)

// assumedNamespace stands in for the namespace of a namespaced object that
// has none: the API server takes it from the request, which offline there is
// not.
const assumedNamespace = "default"

// Validator validates objects against a set of CustomResourceDefinitions. It
// is safe for concurrent use.
type Validator struct {
	versions   map[schema.GroupVersionKind]*kindVersion // served versions only
	groupKinds map[schema.GroupKind]*crdInfo
	kinds      []schema.GroupVersionKind // sorted
}

// crdInfo is one CustomResourceDefinition.
type crdInfo struct {
	crd        *apiextensionsv1.CustomResourceDefinition
	source     string // where it was read, for messages
	kind       string
	namespaced bool
	served     []string // served versions, in the CRD's order
}

// kindVersion holds what the API server builds to serve one version of a
// CRD (customresource_handler.go: getOrCreateServingInfoFor). It is built on
// first use: compiling the CEL rules of every CRD up front would cost much
// more than most callers need.
type kindVersion struct {
	info *crdInfo
	gvk  schema.GroupVersionKind

	once sync.Once
	err  error // the server "could not properly serve" this version

	preserveUnknownFields bool
	structural            *structuralschema.Structural
	schemaValidator       apiservervalidation.SchemaValidator
	celValidator          *cel.Validator
	statusSubresource     bool
	scale                 *apiextensions.CustomResourceSubresourceScale
}

// Has reports whether a CRD defines this group/version/kind (the version
// must be served).
func (v *Validator) Has(gvk schema.GroupVersionKind) bool {
	_, ok := v.versions[gvk]
	return ok
}

// Namespaced reports the scope of a known kind; known is false for kinds
// with no CRD (and, as for Has, for versions the CRD does not serve).
func (v *Validator) Namespaced(gvk schema.GroupVersionKind) (namespaced, known bool) {
	kv, ok := v.versions[gvk]
	if !ok {
		return false, false
	}
	return kv.info.namespaced, true
}

// Labels returns the labels of the CRD that defines a group and kind (any
// version), and whether one does. Providers' released CRDs carry
// clusterctl's cluster.x-k8s.io/provider label and their contract labels.
func (v *Validator) Labels(gk schema.GroupKind) (map[string]string, bool) {
	info, ok := v.groupKinds[gk]
	if !ok {
		return nil, false
	}
	return info.crd.Labels, true
}

// Kinds lists the known GVKs, sorted by group, kind and version (for
// messages).
func (v *Validator) Kinds() []schema.GroupVersionKind {
	return append([]schema.GroupVersionKind(nil), v.kinds...)
}

// Validate checks obj as the API server would on create (see the package
// doc): structural schema (types, required, enum, pattern, formats,
// min/max, nullable...), unknown fields (what pruning would drop, as
// Forbidden errors with the detail `unknown field "spec.foo"`), metadata
// (name format for the kind) and CEL x-kubernetes-validations rules with
// their messages and messageExpressions (transition rules using oldSelf are
// skipped, as on create), with the server's cost limits. The CRD's defaults
// are applied first. A namespaced object needs no namespace: it gets one when
// installed. The errors are the server's, in its order; paths look like
// spec.helm.chartSpec.interval ("<nil>" for the object itself, as the server
// reports rules on the root).
//
// obj is not modified. Validating a GVK with no CRD, or a version the CRD
// does not serve, returns a single error saying so (callers check Has
// first). Validate is safe for concurrent use; the first object of each
// kind and version compiles its CEL rules.
func (v *Validator) Validate(obj *unstructured.Unstructured) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "no object")}
	}
	gvk := obj.GroupVersionKind()
	kv, ok := v.versions[gvk]
	if !ok {
		return field.ErrorList{v.unknownKind(gvk)}
	}
	kv.once.Do(kv.init)
	if kv.err != nil {
		return field.ErrorList{field.InternalError(nil, kv.err)}
	}
	return kv.validate(obj.Object)
}

// unknownKind is the error for a GVK that is not served.
func (v *Validator) unknownKind(gvk schema.GroupVersionKind) *field.Error {
	apiVersion := gvk.GroupVersion().String()
	if info, ok := v.groupKinds[gvk.GroupKind()]; ok {
		supported := make([]string, len(info.served))
		for i, ver := range info.served {
			supported[i] = schema.GroupVersion{Group: gvk.Group, Version: ver}.String()
		}
		if len(supported) == 0 {
			return field.Invalid(field.NewPath("apiVersion"), apiVersion,
				fmt.Sprintf("CustomResourceDefinition %s (%s) serves no version of kind %s", info.crd.Name, info.source, gvk.Kind))
		}
		return field.NotSupported(field.NewPath("apiVersion"), apiVersion, supported)
	}
	if gvk.Kind == "" {
		return field.Required(field.NewPath("kind"), "")
	}
	return field.Invalid(field.NewPath("kind"), gvk.Kind,
		fmt.Sprintf("no CustomResourceDefinition defines kind %s in apiVersion %s", gvk.Kind, apiVersion))
}

// init builds the schemas and validators of one version as the API server
// does.
func (kv *kindVersion) init() {
	crd := kv.info.crd
	name := kv.gvk.Version
	kv.preserveUnknownFields = crd.Spec.PreserveUnknownFields

	val, err := apihelpers.GetSchemaForVersion(crd, name)
	if err != nil {
		kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: %w", kv.info.source, crd.Name, err)
		return
	}
	var internalSchema *apiextensions.JSONSchemaProps
	if val != nil {
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
			kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: convert the schema of version %s: %w", kv.info.source, crd.Name, name, err)
			return
		}
		internalSchema = internal.OpenAPIV3Schema
		s, err := structuralschema.NewStructural(internalSchema)
		if err != nil && !kv.preserveUnknownFields {
			kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: schema of version %s is not structural: %w", kv.info.source, crd.Name, name, err)
			return
		}
		if err == nil && !kv.preserveUnknownFields {
			// As the server: NewStructural does not deep-copy defaults.
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: prune the defaults of version %s: %w", kv.info.source, crd.Name, name, err)
				return
			}
		}
		if err == nil {
			kv.structural = s
		}
	}
	kv.schemaValidator, _, err = apiservervalidation.NewSchemaValidator(internalSchema)
	if err != nil {
		kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: schema of version %s: %w", kv.info.source, crd.Name, name, err)
		return
	}

	sub, err := apihelpers.GetSubresourcesForVersion(crd, name)
	if err != nil {
		kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: %w", kv.info.source, crd.Name, err)
		return
	}
	if sub != nil {
		kv.statusSubresource = sub.Status != nil
		if sub.Scale != nil {
			kv.scale = &apiextensions.CustomResourceSubresourceScale{}
			if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sub.Scale, kv.scale, nil); err != nil {
				kv.err = fmt.Errorf("%s: CustomResourceDefinition %s: scale subresource of version %s: %w", kv.info.source, crd.Name, name, err)
				return
			}
		}
	}

	if kv.structural != nil {
		// customresource.NewStrategy: the CEL programs are compiled here.
		kv.celValidator = cel.NewValidator(kv.structural, true, celconfig.PerCallLimit)
	}
}

// validate runs on a copy of obj what the API server runs on a create
// request's body.
func (kv *kindVersion) validate(obj map[string]interface{}) field.ErrorList {
	// The request body: JSON, decoded the way the server decodes it (a deep
	// copy, with int64 and float64 numbers).
	data, err := json.Marshal(obj)
	if err != nil {
		return field.ErrorList{field.Invalid(nil, nil, fmt.Sprintf("cannot encode the object as JSON: %v", err))}
	}
	u := map[string]interface{}{}
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return field.ErrorList{field.Invalid(nil, nil, fmt.Sprintf("cannot decode the object's JSON: %v", err))}
	}

	// Decoding (unstructuredSchemaCoercer.apply, with the unknown field
	// paths strict field validation asks for), then defaulting.
	unknown, errs := kv.coerce(u)
	if len(errs) > 0 {
		return append(unknownFieldErrors(unknown), errs...)
	}
	if kv.structural != nil {
		structuraldefaulting.Default(u, kv.structural)
	}
	errs = unknownFieldErrors(unknown)

	// The create handler and customResourceStrategy.PrepareForCreate.
	cr := &unstructured.Unstructured{Object: u}
	if cr.GetName() == "" && cr.GetGenerateName() != "" {
		cr.SetName(names.SimpleNameGenerator.GenerateName(cr.GetGenerateName()))
	}
	switch {
	case !kv.info.namespaced:
		cr.SetNamespace("")
	case cr.GetNamespace() == "":
		cr.SetNamespace(assumedNamespace)
	}
	if kv.statusSubresource {
		delete(u, "status")
	}
	cr.SetGeneration(1)

	// customResourceStrategy.Validate.
	var verrs field.ErrorList
	verrs = append(verrs, validation.ValidateObjectMetaAccessor(cr, kv.info.namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	verrs = append(verrs, apiservervalidation.ValidateCustomResource(nil, u, kv.schemaValidator)...)
	verrs = append(verrs, validateScaleSpec(u, kv.scale)...)
	verrs = append(verrs, validateScaleStatus(u, kv.scale)...)
	if kv.structural != nil {
		verrs = append(verrs, schemaobjectmeta.Validate(nil, u, kv.structural, false)...)
		verrs = append(verrs, structurallisttype.ValidateListSetsAndMaps(nil, kv.structural, u)...)
	}
	if kv.celValidator != nil {
		if blocking, err := hasBlockingErr(verrs); blocking {
			verrs = append(verrs, err)
		} else {
			celErrs, _ := kv.celValidator.Validate(context.Background(), nil, kv.structural, u, nil, celconfig.RuntimeCELCostBudget)
			verrs = append(verrs, celErrs...)
		}
	}
	// rest.BeforeCreate: the generic metadata checks come after the
	// strategy's and only when it passed.
	if len(verrs) == 0 {
		verrs = validation.ValidateObjectMetaAccessor(cr, kv.info.namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
	}
	return append(errs, verrs...)
}

// coerce does what unstructuredSchemaCoercer.apply does when decoding a
// request with strict field validation: it prunes what the schema does not
// know and returns its paths.
func (kv *kindVersion) coerce(u map[string]interface{}) (unknown []string, errs field.ErrorList) {
	kind, foundKind, err := unstructured.NestedString(u, "kind")
	if err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("kind"), u["kind"], err.Error())}
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u, "apiVersion")
	if err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("apiVersion"), u["apiVersion"], err.Error())}
	}
	objectMeta, foundObjectMeta, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u, schemaobjectmeta.ObjectMetaOptions{
		ReturnUnknownFieldPaths: true,
	})
	if err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	unknown = append(unknown, metaUnknown...)

	if !kv.preserveUnknownFields {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u, kv.structural, true, structuralschema.UnknownFieldPathOptions{
			TrackUnknownFieldPaths: true,
		})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, kv.structural)
	}
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u, kv.structural, false, schemaobjectmeta.CoerceOptions{
		ReturnUnknownFieldPaths: true,
	})
	if ferr != nil {
		return unknown, field.ErrorList{ferr}
	}
	unknown = append(unknown, paths...)

	if foundKind {
		u["kind"] = kind
	}
	if foundAPIVersion {
		u["apiVersion"] = apiVersion
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u, objectMeta); err != nil {
			return unknown, field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
		}
	}
	return unknown, nil
}

// unknownFieldErrors reports pruned fields as kubectl shows the server's
// strict field validation errors.
func unknownFieldErrors(paths []string) field.ErrorList {
	var errs field.ErrorList
	for _, p := range paths {
		errs = append(errs, &field.Error{
			Type:     field.ErrorTypeForbidden,
			Field:    p,
			BadValue: "",
			Detail:   fmt.Sprintf("unknown field %q", p),
		})
	}
	return errs
}

// hasBlockingErr is customresource's: OpenAPIv3
// type/maxLength/maxItems/required/enum violations keep the CEL rules from
// running.
func hasBlockingErr(errs field.ErrorList) (bool, *field.Error) {
	for _, err := range errs {
		if err.Type == field.ErrorTypeNotSupported || err.Type == field.ErrorTypeRequired || err.Type == field.ErrorTypeTooLong || err.Type == field.ErrorTypeTooMany || err.Type == field.ErrorTypeTypeInvalid {
			return true, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return false, nil
}

// validateScaleSpec is customResourceValidator.ValidateScaleSpec.
func validateScaleSpec(u map[string]interface{}, scale *apiextensions.CustomResourceSubresourceScale) field.ErrorList {
	if scale == nil {
		return nil
	}
	return validateReplicas(u, scale.SpecReplicasPath)
}

// validateScaleStatus is customResourceValidator.ValidateScaleStatus.
func validateScaleStatus(u map[string]interface{}, scale *apiextensions.CustomResourceSubresourceScale) field.ErrorList {
	if scale == nil {
		return nil
	}
	allErrs := validateReplicas(u, scale.StatusReplicasPath)
	if scale.LabelSelectorPath != nil {
		p := strings.TrimPrefix(*scale.LabelSelectorPath, ".")
		labelSelector, _, err := unstructured.NestedString(u, strings.Split(p, ".")...)
		if err != nil {
			allErrs = append(allErrs, field.Invalid(field.NewPath(*scale.LabelSelectorPath), labelSelector, err.Error()))
		}
	}
	return allErrs
}

func validateReplicas(u map[string]interface{}, replicasPath string) field.ErrorList {
	p := strings.TrimPrefix(replicasPath, ".") // ignore leading period
	replicas, _, err := unstructured.NestedInt64(u, strings.Split(p, ".")...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(replicasPath), replicas, err.Error())}
	case replicas < 0:
		return field.ErrorList{field.Invalid(field.NewPath(replicasPath), replicas, "should be a non-negative integer")}
	case replicas > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(replicasPath), replicas, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

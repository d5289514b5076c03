{{- define "other.namespace" -}}
{{- (lookup "v1" "Secret" "kcm-system" "registry-creds").data -}}
{{- end }}
{{- define "every.namespace" -}}
{{- if lookup "v1" "Secret" "" "" }}found{{ end -}}
{{- end }}
{{- define "values.namespace" -}}
{{- if lookup "v1" "ConfigMap" .Values.settingsNamespace "settings" }}found{{ end -}}
{{- end }}
{{- define "unchecked" -}}
{{- $cm := lookup "v1" "ConfigMap" .Release.Namespace "settings" -}}
{{- $cm.data.mode -}}
{{- end }}
{{- define "list" -}}
{{- if lookup "v1" "Secret" .Release.Namespace "" }}found{{ end -}}
{{- end }}

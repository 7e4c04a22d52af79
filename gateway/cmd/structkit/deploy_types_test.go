package main

// The parts of the Kubernetes objects the tests read (the YAML holds more).
type (
	objectMeta struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	labelSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	probe struct {
		GRPC *struct {
			Port    int     `yaml:"port"`
			Service *string `yaml:"service"`
		} `yaml:"grpc"`
		HTTPGet   any `yaml:"httpGet"`
		TCPSocket any `yaml:"tcpSocket"`
		Exec      any `yaml:"exec"`
	}
	container struct {
		Name  string   `yaml:"name"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		Env []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
		StartupProbe   *probe `yaml:"startupProbe"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		Resources      struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	}
	volume struct {
		Name   string `yaml:"name"`
		Secret *struct {
			SecretName  string `yaml:"secretName"`
			DefaultMode *int   `yaml:"defaultMode"`
			Items       []struct {
				Key  string `yaml:"key"`
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"secret"`
		EmptyDir any `yaml:"emptyDir"`
	}
	deployment struct {
		Metadata objectMeta `yaml:"metadata"`
		Spec     struct {
			Replicas int           `yaml:"replicas"`
			Selector labelSelector `yaml:"selector"`
			Template struct {
				Metadata objectMeta `yaml:"metadata"`
				Spec     struct {
					SecurityContext struct {
						RunAsNonRoot *bool `yaml:"runAsNonRoot"`
						RunAsUser    int   `yaml:"runAsUser"`
						RunAsGroup   int   `yaml:"runAsGroup"`
						FSGroup      int   `yaml:"fsGroup"`
					} `yaml:"securityContext"`
					Containers []container `yaml:"containers"`
					Volumes    []volume    `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	service struct {
		Metadata objectMeta `yaml:"metadata"`
		Spec     struct {
			ClusterIP string            `yaml:"clusterIP"`
			Selector  map[string]string `yaml:"selector"`
			Ports     []struct {
				Name       string `yaml:"name"`
				Port       int    `yaml:"port"`
				TargetPort string `yaml:"targetPort"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	pdb struct {
		Spec struct {
			MaxUnavailable any           `yaml:"maxUnavailable"`
			MinAvailable   any           `yaml:"minAvailable"`
			Selector       labelSelector `yaml:"selector"`
		} `yaml:"spec"`
	}
	hpa struct {
		Spec struct {
			ScaleTargetRef struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Name       string `yaml:"name"`
			} `yaml:"scaleTargetRef"`
			MinReplicas int `yaml:"minReplicas"`
			MaxReplicas int `yaml:"maxReplicas"`
			Metrics     []struct {
				Type     string `yaml:"type"`
				Resource struct {
					Name   string `yaml:"name"`
					Target struct {
						Type               string `yaml:"type"`
						AverageUtilization int    `yaml:"averageUtilization"`
					} `yaml:"target"`
				} `yaml:"resource"`
			} `yaml:"metrics"`
		} `yaml:"spec"`
	}
)

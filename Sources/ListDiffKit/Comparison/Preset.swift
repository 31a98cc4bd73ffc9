/// Settings that suit one kind of document: the key of its records and the keys of the
/// lists inside them, as `--preset` names them.
public enum Preset: String, Sendable, CaseIterable {
    /// Kubernetes objects: each keyed by kind, namespace and name, the lists the Kubernetes
    /// API merges by key (its `patchMergeKey` and `listMapKey` markers) keyed as the API
    /// keys them, and YAML read as Kubernetes reads it.
    case kubernetes

    /// The key of the records.
    public var key: IdentityKey {
        switch self {
        case .kubernetes: return IdentityKey(["kind", "metadata.namespace", "metadata.name"].map { try! FieldPath($0) })
        }
    }

    /// How YAML inputs are read: as Kubernetes reads them.
    package var yamlVersion: YAMLVersion {
        switch self {
        case .kubernetes: return .kubernetes
        }
    }

    /// The keys of the lists inside the records.
    public var arrayKeys: [Comparison.ArrayKey] {
        switch self {
        case .kubernetes:
            let specs = Self.kubernetesLists.flatMap { list in list.paths.flatMap { path in list.fields.map { "\(path)=\($0)" } } }
            return try! Comparison.ArrayKey.parsing(specs)
        }
    }

    /// Where a pod template's spec stands in each workload kind: a Pod's own spec; the
    /// template of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or
    /// ReplicationController; a CronJob's job template.
    static let podSpecs = ["/spec", "/spec/template/spec", "/spec/jobTemplate/spec/template/spec"]

    /// The Kubernetes API's keyed lists, from the `patchMergeKey` and `listMapKey` markers
    /// of `k8s.io/api` (core/v1 and meta/v1): each list's path below a pod spec or an
    /// object, and its key fields.
    static let kubernetesLists: [(paths: [String], fields: [String])] = {
        var lists: [(paths: [String], fields: [String])] = []
        let containers = ["containers", "initContainers", "ephemeralContainers"]
        func inPods(_ path: String, _ fields: [String]) { lists.append((podSpecs.map { $0 + path }, fields)) }
        for list in containers {
            inPods("/\(list)", ["name"])
            inPods("/\(list)/*/env", ["name"])
            inPods("/\(list)/*/ports", ["containerPort", "protocol"])
            inPods("/\(list)/*/volumeMounts", ["mountPath"])
            inPods("/\(list)/*/volumeDevices", ["devicePath"])
        }
        inPods("/volumes", ["name"])
        inPods("/imagePullSecrets", ["name"])
        inPods("/hostAliases", ["ip"])
        inPods("/topologySpreadConstraints", ["topologyKey", "whenUnsatisfiable"])
        inPods("/resourceClaims", ["name"])
        inPods("/schedulingGates", ["name"])
        // A Service's ports, an object's owners, and the conditions in a status.
        lists.append((["/spec/ports"], ["port", "protocol"]))
        lists.append((["/metadata/ownerReferences"], ["uid"]))
        lists.append((["/status/conditions"], ["type"]))
        return lists
    }()
}

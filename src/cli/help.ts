import { KNOWN_PLURALS } from './resourceArg.js';

/** `kube-rx --help`. */
export const MAIN_HELP = `kube-rx: the Kubernetes watch API, resilient, in your terminal and browser

Usage:
  kube-rx watch <resource> [flags]     a resilient "kubectl get -w"
  kube-rx dashboard [flags]            a live web page of deployments and their pods
  kube-rx crd-types <crd>... [flags]   TypeScript types for custom resources, from their CRDs

Run "kube-rx <command> --help" for its flags.

They use the current kubeconfig (KUBECONFIG, else ~/.kube/config; crd-types only to read CRDs
by name). With none, or with --demo, they start an embedded, simulated cluster, say so, and
print a KUBECONFIG=<path> line with which kubectl can change it (the file is removed when
kube-rx stops).

Flags:
  -h, --help       show this help
      --version    print the version
`;

/** `kube-rx watch --help`. */
export const WATCH_HELP = `Usage: kube-rx watch <resource> [flags]

Lists, then watches, a resource, like "kubectl get -w", and never gives up on a connection:
it resumes from the last resourceVersion after a disconnect and relists after 410 Gone.
Reconnections and relists are reported on stderr. Ctrl-C stops it.

<resource> is named as kubectl names it, through the server's discovery (read once per run):
  pods | pod | po | Pod        plural, singular, short name or kind (any case)
  deployments.apps             plural.group (also singular, short name or kind .group)
  deployments.v1.apps          plural.version.group
  crontabs                     custom resources too (crontabs.stable.example.com)
  apps/v1/deployments          group/version/plural (v1/secrets for the core group)
A name several groups serve is ambiguous unless the core group has it (events): name the
group. Without discovery (403 on /apis, no answer) the built-in names still work:
${KNOWN_PLURALS.join(', ')} (po, deploy, svc, no, ns, cm, rs, ev) and group/version/plural.

Columns come from the server, as kubectl prints them (a custom resource's printer columns
included); a server that does not answer Tables gets kube-rx's own columns.

Flags:
  -n, --namespace <ns>        the namespace (default: the context's, else "default")
  -A, --all-namespaces        every namespace (adds a NAMESPACE column)
  -l, --selector <sel>        label selector, e.g. app=web,tier!=db
      --field-selector <sel>  field selector, e.g. status.phase=Running
  -o, --output <format>       table (default), wide (more columns), json (one object per
                              line), yaml (one document per event, "---" between) or name
      --output-watch-events   the event type too: an EVENT column, {"type","object"} in
                              json and yaml, "ADDED pod/web" with name
      --metadata-only         ask for metadata only (PartialObjectMetadata): -o name (default) or json
      --context <name>        the kubeconfig context to use
      --kubeconfig <file>     the kubeconfig file to use
      --demo                  watch the embedded simulated cluster
  -h, --help                  show this help

In a table, a deleted object reads "Deleted" as its STATUS, or "<deleted>" as its AGE when it
has no STATUS (with --output-watch-events its EVENT says DELETED). Exit codes: 0 after Ctrl-C,
1 on bad flags, unknown or ambiguous resource, unreachable cluster, missing permissions or a
bad kubeconfig.
`;

/** `kube-rx dashboard --help`. */
export const DASHBOARD_HELP = `Usage: kube-rx dashboard [flags]

Serves a live web page on 127.0.0.1: deployments with ready/desired and their pods (status,
restarts, age, node), updated over Server-Sent Events from one shared watch pipeline, with the
state of the connection (live / reconnecting / relisting) and the events per second.

Flags:
      --port <port>          the port (default 8080; 0 picks a free one)
  -n, --namespace <ns>       one namespace (default: every namespace)
      --context <name>       the kubeconfig context to use; given several times, the page
                             shows every cluster, each with its own connection state
      --kubeconfig <file>    the kubeconfig file to use
      --demo                 show the embedded simulated cluster
  -h, --help                 show this help
`;

/** `kube-rx crd-types --help`. */
export const CRD_TYPES_HELP = `Usage: kube-rx crd-types <crd.yaml | crd name>... [flags]

Writes TypeScript for custom resources: for every served version of every CRD, an interface
of its objects (from the version's openAPIV3Schema, with its descriptions as JSDoc) and a
typed ResourceRef to list, watch and write them with. The output compiles under "strict".

Each argument is a CRD file (YAML, several documents or a List allowed, or JSON) when such a
file exists, else the name of a CustomResourceDefinition on the cluster (plural.group, as
"kubectl get crd" lists them), read from the current kubeconfig's cluster.

Names, for kind CronTab, plural crontabs, versions v1 (storage) and v1beta1:
  CronTabV1, CronTabV1beta1        the objects of each version (apiVersion and kind fixed)
  cronTabsV1, cronTabsV1beta1      their ResourceRefs (group, version, plural, kind, namespaced)
  CronTab, cronTabs                the storage version's, unversioned

Schemas map as the API server reads them: required, enum, nullable (| null), maps
(additionalProperties), x-kubernetes-int-or-string (number | string),
x-kubernetes-preserve-unknown-fields (an index signature of unknown),
x-kubernetes-embedded-resource (apiVersion, kind, metadata); list types go into the JSDoc.

It needs json-schema-to-typescript, an optional peer dependency of kube-rx:
  npm install -D json-schema-to-typescript

Flags:
  -o, --output <file.ts>      write there (replaced in one rename) instead of stdout
      --context <name>        the kubeconfig context to read CRDs from
      --kubeconfig <file>     the kubeconfig file to use
  -h, --help                  show this help

Exit codes: 0 when everything was written; 1 on a file that is not a CRD, a schema that
cannot be typed (a $ref, an unknown type), a CRD the cluster does not have, or bad flags,
with a message naming the file or CRD and the JSON path, and no output at all.
`;

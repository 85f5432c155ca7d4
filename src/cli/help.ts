import { KNOWN_PLURALS } from './resourceArg.js';

/** `kube-rx --help`. */
export const MAIN_HELP = `kube-rx: the Kubernetes watch API, resilient, in your terminal and browser

Usage:
  kube-rx watch <resource> [flags]     a resilient "kubectl get -w"
  kube-rx dashboard [flags]            a live web page of deployments and their pods

Run "kube-rx <command> --help" for its flags.

Both use the current kubeconfig (KUBECONFIG, else ~/.kube/config). With none, or with --demo,
they start an embedded, simulated cluster and say so.

Flags:
  -h, --help       show this help
      --version    print the version
`;

/** `kube-rx watch --help`. */
export const WATCH_HELP = `Usage: kube-rx watch <plural | group/version/plural> [flags]

Lists, then watches, a resource, like "kubectl get -w", and never gives up on a connection:
it resumes from the last resourceVersion after a disconnect and relists after 410 Gone.
Reconnections and relists are reported on stderr. Ctrl-C stops it.

Resources: ${KNOWN_PLURALS.join(', ')} (and kubectl's short names: po, deploy, svc,
no, ns, cm, rs, ev); anything else as group/version/plural (apps/v1/statefulsets,
stable.example.com/v1/crontabs) or version/plural for the core group (v1/secrets).
A custom resource that is cluster-scoped needs -A.

Flags:
  -n, --namespace <ns>        the namespace (default: the context's, else "default")
  -A, --all-namespaces        every namespace (adds a NAMESPACE column)
  -l, --selector <sel>        label selector, e.g. app=web,tier!=db
      --field-selector <sel>  field selector, e.g. status.phase=Running
  -o, --output <format>       table (default), json (one {"type","object"} per line) or name
      --metadata-only         ask for metadata only (PartialObjectMetadata): -o name (default) or json
      --context <name>        the kubeconfig context to use
      --kubeconfig <file>     the kubeconfig file to use
      --demo                  watch the embedded simulated cluster
  -h, --help                  show this help

In a table, a deleted pod reads "Deleted" as its STATUS, another deleted object "<deleted>" as
its AGE. Exit codes: 0 after Ctrl-C, 1 on bad flags, unknown resource, unreachable cluster,
missing permissions or a bad kubeconfig.
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

/**
 * A label selector that cannot be read: a selector string outside kube's grammar, a bad label
 * key or value, or a `matchExpressions` operator that is not In, NotIn, Exists or DoesNotExist.
 * A TypeError, as every bad argument of a contract checked at call time is; its message is
 * kube-apiserver's (the test server answers 400 BadRequest with it).
 *
 * @example
 * try {
 *   matchesLabelSelector('app in web', labels);
 * } catch (error) {
 *   if (error instanceof LabelSelectorError) console.warn(error.message);
 * }
 */
export class LabelSelectorError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

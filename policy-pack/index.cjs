// The ready pack: `pulumi preview --policy-pack` runs this folder (docs/policies.md).
require("pulumi-notification-handlers/policy").handlerPolicyPack();

//! The SDK's network-only work, switched off for the fake's own client.
//!
//! Three interceptors of every `aws_sdk_dynamodb` client add headers that only a service on the
//! network reads: the user agent (built and formatted on every attempt: about an eighth of an
//! in-process call; it names the operating system and reads `AWS_EXECUTION_ENV`),
//! `amz-sdk-request` (attempt numbers) and `amz-sdk-invocation-id`. The fake reads none of them,
//! so the fake's client turns them off through the SDK's own switch, [`disable_interceptor`].
//! The clock-skew interceptor goes too: it measures the skew from a response's `Date` header, which
//! an in-process answer does not carry, for the SigV4 signatures that the fake's client (its auth
//! scheme is `noAuth`) never makes; it would read the clock and the configuration three times a call.
//! (The Lambda recursion-detection interceptor is permanent in the SDK and stays.)
//!
//! The switches live in one configuration layer, frozen once per client: at the start of each
//! call, `InProcessOnly` lays it on the call's configuration (an `Arc` clone) instead of storing
//! four values anew. It is registered as permanent and names the one hook it uses
//! (`dyn_dispatch_hint`), so the SDK neither asks before each hook whether it was switched off nor
//! calls its empty hooks.

use aws_runtime::invocation_id::InvocationIdInterceptor;
use aws_runtime::request_info::RequestInfoInterceptor;
use aws_runtime::service_clock_skew::ServiceClockSkewInterceptor;
use aws_runtime::user_agent::UserAgentInterceptor;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::context::BeforeSerializationInterceptorContextRef;
use aws_smithy_runtime_api::client::interceptors::{
    Intercept, SharedInterceptor, disable_interceptor, dyn_dispatch_hint,
};
use aws_smithy_types::config_bag::{ConfigBag, FrozenLayer, Layer};

const CAUSE: &str = "dynalease-fake answers in-process and reads no network-only headers";

/// Turns off, before each operation starts, the interceptors that only matter on a network.
#[derive(Debug)]
pub(crate) struct InProcessOnly {
    switches: FrozenLayer,
}

impl InProcessOnly {
    /// The interceptor, ready for `config::Builder::push_interceptor`.
    pub(crate) fn interceptor() -> SharedInterceptor {
        let mut layer = Layer::new("DynaleaseFakeInProcessOnly");
        layer.store_put(disable_interceptor::<UserAgentInterceptor>(CAUSE));
        layer.store_put(disable_interceptor::<RequestInfoInterceptor>(CAUSE));
        layer.store_put(disable_interceptor::<InvocationIdInterceptor>(CAUSE));
        layer.store_put(disable_interceptor::<ServiceClockSkewInterceptor>(CAUSE));
        SharedInterceptor::permanent(InProcessOnly { switches: layer.freeze() })
    }
}

#[dyn_dispatch_hint]
impl Intercept for InProcessOnly {
    fn name(&self) -> &'static str {
        "DynaleaseFakeInProcessOnly"
    }

    fn read_before_execution(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        cfg.push_shared_layer(self.switches.clone());
        Ok(())
    }
}

//! Gate: what must hold before a resolved tool runs. The arguments are repaired
//! and checked against the tool's schema, the before-call hooks run, and the
//! approver (or the destructive-tools rule) decides. Nothing is dispatched unless
//! every step passes; the policy check happened when the tool was resolved.

use serde_json::{json, Value};
use toolsearch_catalog::Tool;

use super::repair::repair;
use super::validate::{check, Checked};
use super::Host;
use crate::dispatch::CallContext;
use crate::error::{ErrorCode, HostError};

/// Schemas up to this size are repeated in an invalid-arguments error.
const MAX_SCHEMA_IN_ERROR: usize = 4096;

impl Host {
    /// The arguments to send, repaired, and the notes of the repairs made; or why
    /// the call may not run.
    pub(crate) async fn gate(
        &self,
        tool: &Tool,
        args: Value,
        cx: &CallContext,
    ) -> Result<(Value, Vec<String>), HostError> {
        let (args, mut notes) = repair(&tool.input_schema, args);
        let mut checked = check(&tool.input_schema, &args);
        if checked.violations.is_empty() && !checked.incomplete {
            // The keywords the subset skips (`pattern`, `oneOf` exclusivity, `not`...).
            if let Some(full) = self.compiled.check(&tool.id, &tool.input_schema, &args) {
                checked = full;
            }
        }
        if !checked.violations.is_empty() {
            let mut e = HostError::new(
                ErrorCode::InvalidArgs,
                format!(
                    "arguments do not match the schema of `{}`; nothing was called: {}",
                    tool.id,
                    violations_text(&checked)
                ),
            );
            e.input_schema = Some(Box::new(schema_to_repeat(tool)));
            return Err(e);
        }
        if checked.incomplete {
            notes.push(
                "the arguments were only partly checked (the schema is too complex to check \
                 in full); the tool's server checks them"
                    .into(),
            );
        }
        for hook in &self.before {
            hook(tool, &args, cx).map_err(|reason| {
                HostError::new(
                    ErrorCode::ApprovalDenied,
                    format!("the call to `{}` was blocked: {reason}", tool.id),
                )
            })?;
        }
        if let Some(approver) = &self.approver {
            // A person may take a while: the snippet's deadline does not run
            // meanwhile (while it is idle); the approval has its own limit.
            #[cfg(feature = "code")]
            let _paused = toolsearch_sandbox::pause_for_a_person();
            let asked = approver.approve(tool, &args, cx);
            match tokio::time::timeout(self.approval_timeout, asked).await {
                Ok(Ok(())) => {}
                Ok(Err(reason)) => {
                    return Err(HostError::new(
                        ErrorCode::ApprovalDenied,
                        format!("the call to `{}` was not approved: {reason}", tool.id),
                    ))
                }
                Err(_) => {
                    return Err(HostError::new(
                        ErrorCode::ApprovalDenied,
                        format!(
                            "the approval of the call to `{}` was not given within {} s (the \
                             longest an approval may take), so the call did not run",
                            tool.id,
                            self.approval_timeout.as_secs_f64()
                        ),
                    ))
                }
            }
        } else if crate::policy::needs_approval(tool, self.approve_destructive) {
            return Err(HostError::new(
                ErrorCode::ApprovalDenied,
                format!(
                    "`{}` is destructive and needs approval, and no approver is configured",
                    tool.id
                ),
            ));
        }
        Ok((args, notes))
    }
}

/// The violations of an invalid-arguments error as one line (`$.a is required;
/// $.b must be a string`), with how many more there were.
fn violations_text(checked: &Checked) -> String {
    let mut text = checked
        .violations
        .iter()
        .map(|v| format!("{} {}", v.path, v.message))
        .collect::<Vec<_>>()
        .join("; ");
    if checked.more > 0 {
        text.push_str(&format!(" (and {} more)", checked.more));
    }
    text
}

/// The schema an invalid-arguments error repeats: the tool's, when small.
fn schema_to_repeat(tool: &Tool) -> Value {
    match toolsearch_catalog::schema::json_within(&tool.input_schema, MAX_SCHEMA_IN_ERROR) {
        Some(_) => tool.input_schema.clone(),
        None => json!("too large to repeat here; describe the tool to read it"),
    }
}

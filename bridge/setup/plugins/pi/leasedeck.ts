// leasedeck: every pi tool call is checked by leasedeck before it runs.
// Written by `leasedeck install pi`; run it again rather than editing this file.
// Any failure of the check (the hook cannot start, exits non-zero, answers
// nothing readable, or takes longer than TIMEOUT_MS) refuses the call.
import { spawn } from "node:child_process"

const LEASEDECK = "@@LEASEDECK@@"
const ARGS = "@@ARGS@@"
const TIMEOUT_MS = "@@TIMEOUT_MS@@"

function ask(payload: object): Promise<any> {
  return new Promise((resolve) => {
    let out = "", err = "", done = false, child: any, timer: any
    const finish = (answer: any) => { if (!done) { done = true; clearTimeout(timer); resolve(answer) } }
    const refuse = (why: string) => finish({ decision: "deny", reason: `leasedeck: ${why}; the call is refused` })
    try {
      child = spawn(LEASEDECK, ARGS, { stdio: ["pipe", "pipe", "pipe"] })
    } catch (e: any) {
      return refuse(`the hook could not start (${e.message})`)
    }
    timer = setTimeout(() => { child.kill("SIGKILL"); refuse(`the hook did not answer within ${TIMEOUT_MS / 1000} s`) }, TIMEOUT_MS)
    child.on("error", (e: any) => refuse(`the hook could not run (${e.message})`))
    child.stdout.on("data", (d: any) => { out += d })
    child.stderr.on("data", (d: any) => { err += d })
    child.on("close", (code: any, signal: any) => {
      if (code !== 0) return refuse(`the hook exited ${code ?? signal}${err.trim() ? ": " + err.trim() : ""}`)
      try { finish(JSON.parse(out)) } catch { refuse("the hook's answer is unreadable") }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

const allowed = (a: any) => a !== null && typeof a === "object" && (a.decision === "allow" || a.decision === "none")
const why = (a: any) => (a && typeof a.reason === "string" && a.reason) || "leasedeck: refused"
const warn = (a: any) => { for (const w of (a && Array.isArray(a.warnings) ? a.warnings : [])) console.error(String(w)) }

export default function (pi: any) {
  const base = (event: string, ctx: any) => ({ hook_event_name: event, session_id: ctx.sessionManager?.getSessionId?.() ?? "", cwd: ctx.cwd })
  pi.on("input", async (e: any, ctx: any) => {
    const a = await ask({ ...base("input", ctx), prompt: e.text, reason: e.source })
    warn(a)
    if (!allowed(a)) { console.error(why(a)); return { action: "handled" } }
  })
  pi.on("tool_call", async (e: any, ctx: any) => {
    const a = await ask({ ...base("tool_call", ctx), tool_name: e.toolName, tool_use_id: e.toolCallId, tool_input: e.input })
    warn(a)
    if (!allowed(a)) return { block: true, reason: why(a) }
  })
  pi.on("tool_result", async (e: any, ctx: any) => {
    const a = await ask({ ...base("tool_result", ctx), tool_name: e.toolName, tool_use_id: e.toolCallId, tool_input: e.input,
      tool_output: e.content, is_error: e.isError === true })
    warn(a)
    if (a?.decision === "block") return { content: [...(e.content ?? []), { type: "text", text: why(a) }], isError: true }
    if (a?.decision === "deny") console.error(why(a))
  })
  for (const event of ["agent_end", "session_shutdown"]) {
    pi.on(event, async (e: any, ctx: any) => {
      const a = await ask({ ...base(event, ctx), reason: e.reason })
      warn(a)
      if (a?.decision === "deny") console.error(why(a))
    })
  }
}

// leasedeck: every OpenCode tool call is checked by leasedeck before it runs.
// Written by `leasedeck install opencode`; run it again rather than editing this file.
// Any failure of the check (the hook cannot start, exits non-zero, answers
// nothing readable, or takes longer than TIMEOUT_MS) refuses the call.
import { spawn } from "node:child_process"

const LEASEDECK = "@@LEASEDECK@@"
const ARGS = "@@ARGS@@"
const TIMEOUT_MS = "@@TIMEOUT_MS@@"

function ask(payload) {
  return new Promise((resolve) => {
    let out = "", err = "", done = false, child, timer
    const finish = (answer) => { if (!done) { done = true; clearTimeout(timer); resolve(answer) } }
    const refuse = (why) => finish({ decision: "deny", reason: `leasedeck: ${why}; the call is refused` })
    try {
      child = spawn(LEASEDECK, ARGS, { stdio: ["pipe", "pipe", "pipe"] })
    } catch (e) {
      return refuse(`the hook could not start (${e.message})`)
    }
    timer = setTimeout(() => { child.kill("SIGKILL"); refuse(`the hook did not answer within ${TIMEOUT_MS / 1000} s`) }, TIMEOUT_MS)
    child.on("error", (e) => refuse(`the hook could not run (${e.message})`))
    child.stdout.on("data", (d) => { out += d })
    child.stderr.on("data", (d) => { err += d })
    child.on("close", (code, signal) => {
      if (code !== 0) return refuse(`the hook exited ${code ?? signal}${err.trim() ? ": " + err.trim() : ""}`)
      try { finish(JSON.parse(out)) } catch { refuse("the hook's answer is unreadable") }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

const allowed = (a) => a !== null && typeof a === "object" && (a.decision === "allow" || a.decision === "none")
const why = (a) => (a && typeof a.reason === "string" && a.reason) || "leasedeck: refused"
const warn = (a) => { for (const w of (a && Array.isArray(a.warnings) ? a.warnings : [])) console.error(String(w)) }

export const Leasedeck = async ({ directory }) => {
  // A task's session is a subagent of the session that started it.
  const parents = new Map()
  const base = (event, session) => parents.has(session)
    ? { hook_event_name: event, session_id: parents.get(session), agent_id: session, agent_type: "task", cwd: directory }
    : { hook_event_name: event, session_id: session, cwd: directory }
  const sessionEvents = { "session.idle": (p) => p.sessionID, "session.error": (p) => p.sessionID, "session.deleted": (p) => p.info?.id }
  return {
    "chat.message": async (input, output) => {
      const prompt = (output.parts ?? []).filter((p) => p.type === "text").map((p) => p.text).join("\n")
      const a = await ask({ ...base("chat.message", input.sessionID), prompt })
      warn(a)
      if (!allowed(a)) throw new Error(why(a))
    },
    "tool.execute.before": async (input, output) => {
      const a = await ask({ ...base("tool.execute.before", input.sessionID), tool_name: input.tool, tool_use_id: input.callID, tool_input: output.args })
      warn(a)
      if (!allowed(a)) throw new Error(why(a))
    },
    "tool.execute.after": async (input, output) => {
      const a = await ask({ ...base("tool.execute.after", input.sessionID), tool_name: input.tool, tool_use_id: input.callID,
        tool_input: input.args, tool_output: output.output })
      warn(a)
      if (a?.decision === "block") output.output = `${output.output ?? ""}\n\n${why(a)}`
      else if (a?.decision === "deny") console.error(why(a))
    },
    event: async ({ event }) => {
      const info = event.type === "session.created" ? event.properties?.info : undefined
      if (info?.parentID) parents.set(info.id, parents.get(info.parentID) ?? info.parentID)
      const session = sessionEvents[event.type]?.(event.properties ?? {})
      if (!session) return
      const a = await ask({ ...base(event.type, session), reason: event.type === "session.error" ? String(event.properties.error?.name ?? "") : undefined })
      warn(a)
      if (a?.decision === "deny") console.error(why(a))
    },
  }
}

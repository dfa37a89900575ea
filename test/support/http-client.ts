// fetch with the conventions of the door tests: a Bearer token, JSON bodies, the answer read once.
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

export const call = async (
  base: string,
  path: string,
  options: {
    readonly token?: string | null
    readonly method?: string
    readonly body?: unknown
    readonly rawBody?: string
    readonly headers?: Readonly<Record<string, string>>
  } = {},
): Promise<Answer> => {
  const headers = new Headers(options.headers)
  if (options.token !== undefined && options.token !== null) headers.set("authorization", `Bearer ${options.token}`)
  let body: string | undefined
  if (options.rawBody !== undefined || options.body !== undefined) {
    headers.set("content-type", "application/json")
    body = options.rawBody ?? JSON.stringify(options.body)
  }
  const response = await fetch(base + path, { method: options.method ?? "GET", headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed }
}

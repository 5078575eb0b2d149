-- Neovim's built-in LSP client against `shardlang lsp` (run by
-- neovim_test.py, headless): opens a file with an ambiguous contraction,
-- waits for the diagnostic, asks for the hover text, the inlay hints and the
-- code actions, applies the cheapest fix and waits for the diagnostic to go.
-- Every wait is vim.wait on a condition. Writes what it saw as JSON to
-- $SHARDLANG_REPORT and quits (status 1 on a Lua error).
local binary = os.getenv('SHARDLANG_BIN')
local file = os.getenv('SHARDLANG_FILE')
local report_path = os.getenv('SHARDLANG_REPORT')
local timeout = 20000

local report = {}

local function request(bufnr, method, params)
  local responses, problem = vim.lsp.buf_request_sync(bufnr, method, params, timeout)
  if not responses then error(method .. ': ' .. tostring(problem)) end
  for _, response in pairs(responses) do
    if response.err then error(method .. ': ' .. vim.inspect(response.err)) end
    return response.result
  end
  error(method .. ': no response')
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'shardlang',
    cmd = { binary, 'lsp', '--platform', 'tpu', '--devices', '8' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
  })
  assert(client_id, 'the client did not start')
  vim.lsp.buf_attach_client(bufnr, client_id)

  assert(vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) > 0 end, 10), 'no diagnostic arrived')
  report.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(report.diagnostics, {
      lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity, message = d.message,
      code = lsp.code, related = lsp.relatedInformation,
    })
  end
  local uri = vim.uri_from_bufnr(bufnr)

  report.hover = request(bufnr, 'textDocument/hover', {
    textDocument = { uri = uri }, position = { line = 7, character = 42 },
  })
  report.inlay_hints = request(bufnr, 'textDocument/inlayHint', {
    textDocument = { uri = uri },
    range = { start = { line = 0, character = 0 }, ['end'] = { line = 8, character = 0 } },
  })
  local lsp_diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do table.insert(lsp_diagnostics, d.user_data.lsp) end
  report.code_actions = request(bufnr, 'textDocument/codeAction', {
    textDocument = { uri = uri },
    range = { start = { line = 7, character = 6 }, ['end'] = { line = 7, character = 6 } },
    context = { diagnostics = lsp_diagnostics },
  })

  -- The cheapest fix, applied as the editor applies it; the server re-checks.
  vim.lsp.util.apply_workspace_edit(report.code_actions[1].edit, 'utf-16')
  report.fixed_line = vim.api.nvim_buf_get_lines(bufnr, 7, 8, false)[1]
  report.cleared = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == 0 end, 10)

  vim.lsp.stop_client(client_id)
  report.stopped = vim.wait(timeout, function() return vim.lsp.get_client_by_id(client_id) == nil end, 10)
end

local ok, problem = pcall(run)
report.error = (not ok) and tostring(problem) or nil
vim.fn.writefile({ vim.fn.json_encode(report) }, report_path)
if ok then vim.cmd('qall!') else vim.cmd('cquit 1') end

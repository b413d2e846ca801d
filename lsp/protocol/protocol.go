// Package protocol is the part of the Language Server Protocol nginxtune's
// language server speaks: the JSON-RPC 2.0 framing (jsonrpc.go) and a
// typed struct for every message the server reads or writes, named and
// shaped as the specification (version 3.17) names them; fields the server
// never sends or reads are left out.
//
// Where the server's answers were once written as maps, a struct lists its
// fields in the order encoding/json wrote the map's keys (sorted), so the
// bytes on the wire are the same: ServerCapabilities, PublishDiagnosticsParams.
package protocol

// Position is a line and a character offset in UTF-16 code units, both
// from zero.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open range of positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextEdit replaces a range.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// DiagnosticSeverity is how grave a finding is.
type DiagnosticSeverity int

// The severities nginxtune sends.
const (
	SeverityError       DiagnosticSeverity = 1
	SeverityWarning     DiagnosticSeverity = 2
	SeverityInformation DiagnosticSeverity = 3
)

// Diagnostic is a finding.
type Diagnostic struct {
	Range              Range                          `json:"range"`
	Severity           DiagnosticSeverity             `json:"severity"`
	Code               string                         `json:"code,omitempty"`
	CodeDescription    *CodeDescription               `json:"codeDescription,omitempty"`
	Source             string                         `json:"source"`
	Message            string                         `json:"message"`
	RelatedInformation []DiagnosticRelatedInformation `json:"relatedInformation,omitempty"`
}

// CodeDescription links a diagnostic's code to its documentation.
type CodeDescription struct {
	Href string `json:"href"`
}

// DiagnosticRelatedInformation points at another place a finding names.
type DiagnosticRelatedInformation struct {
	Location Location `json:"location"`
	Message  string   `json:"message"`
}

// Markdown is the MarkupContent kind of every text the server writes.
const Markdown = "markdown"

// MarkupContent is text for a hover.
type MarkupContent struct {
	Kind  string `json:"kind"` // "markdown" or "plaintext"
	Value string `json:"value"`
}

// Hover answers textDocument/hover.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// CompletionItemKind is the icon of a completion.
type CompletionItemKind int

// The completion kinds nginxtune sends.
const (
	CompletionVariable CompletionItemKind = 6
	CompletionClass    CompletionItemKind = 7 // an upstream
	CompletionValue    CompletionItemKind = 12
	CompletionKeyword  CompletionItemKind = 14 // a directive
)

// CompletionItem is one completion.
type CompletionItem struct {
	Label         string             `json:"label"`
	Kind          CompletionItemKind `json:"kind,omitempty"`
	Detail        string             `json:"detail,omitempty"`
	Documentation *MarkupContent     `json:"documentation,omitempty"`
	InsertText    string             `json:"insertText,omitempty"`
	// TextEdit replaces the word being typed with the item's text: a
	// client that inserts the label after its own idea of a word
	// (Neovim 0.7 after "http://" or "$") would write the typed part twice.
	TextEdit *TextEdit `json:"textEdit,omitempty"`
}

// CompletionList answers textDocument/completion.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// SymbolKind is the icon of an outline entry.
type SymbolKind int

// The symbol kinds nginxtune sends.
const (
	SymbolModule   SymbolKind = 2  // http, stream, mail, events
	SymbolClass    SymbolKind = 5  // server
	SymbolMethod   SymbolKind = 6  // location, upstream, if and the like
	SymbolVariable SymbolKind = 13 // map, geo
	SymbolObject   SymbolKind = 19 // any other block
)

// DocumentSymbol is one entry of a document's outline.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           SymbolKind       `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// WorkspaceEdit is a set of edits by document.
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

// QuickFix is the kind of every code action the server offers.
const QuickFix = "quickfix"

// CodeAction is a quick fix.
type CodeAction struct {
	Title       string        `json:"title"`
	Kind        string        `json:"kind"`
	Diagnostics []Diagnostic  `json:"diagnostics,omitempty"`
	IsPreferred bool          `json:"isPreferred,omitempty"`
	Edit        WorkspaceEdit `json:"edit"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// VersionedTextDocumentIdentifier names a document at a version.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

// TextDocumentItem is a document the client opened.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// TextDocumentPositionParams are a place in a document: the params of
// textDocument/hover, completion and definition.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// DidOpenTextDocumentParams are textDocument/didOpen's.
type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// DidChangeTextDocumentParams are textDocument/didChange's.
type DidChangeTextDocumentParams struct {
	TextDocument   VersionedTextDocumentIdentifier  `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

// TextDocumentContentChangeEvent replaces a range of a document, or the
// whole text when Range is nil.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range"`
	Text  string `json:"text"`
}

// DidSaveTextDocumentParams are textDocument/didSave's.
type DidSaveTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text"`
}

// DidCloseTextDocumentParams are textDocument/didClose's.
type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DocumentSymbolParams are textDocument/documentSymbol's.
type DocumentSymbolParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// CodeActionParams are textDocument/codeAction's.
type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      CodeActionContext      `json:"context"`
}

// CodeActionContext is the findings the client shows at the range.
type CodeActionContext struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// DocumentFormattingParams are textDocument/formatting's.
type DocumentFormattingParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Options      FormattingOptions      `json:"options"`
}

// FormattingOptions are the editor's indentation settings.
type FormattingOptions struct {
	TabSize      int  `json:"tabSize"`
	InsertSpaces bool `json:"insertSpaces"`
}

// ReferenceParams are textDocument/references'.
type ReferenceParams struct {
	TextDocumentPositionParams
	Context ReferenceContext `json:"context"`
}

// ReferenceContext says whether the declaration is one of the references.
type ReferenceContext struct {
	IncludeDeclaration bool `json:"includeDeclaration"`
}

// InitializeParams are initialize's.
type InitializeParams struct {
	RootURI               string                `json:"rootUri"`
	RootPath              string                `json:"rootPath"`
	WorkspaceFolders      []WorkspaceFolder     `json:"workspaceFolders"`
	InitializationOptions InitializationOptions `json:"initializationOptions"`
	Capabilities          ClientCapabilities    `json:"capabilities"`
}

// WorkspaceFolder is a folder the client opened.
type WorkspaceFolder struct {
	URI string `json:"uri"`
}

// InitializationOptions are nginxtune's own settings from the client.
type InitializationOptions struct {
	NginxVersion string `json:"nginxVersion"`
}

// ClientCapabilities are what the client can do, as far as the server
// asks.
type ClientCapabilities struct {
	Workspace WorkspaceClientCapabilities `json:"workspace"`
}

// WorkspaceClientCapabilities are the client's workspace capabilities.
type WorkspaceClientCapabilities struct {
	DidChangeWatchedFiles DidChangeWatchedFilesClientCapabilities `json:"didChangeWatchedFiles"`
}

// DidChangeWatchedFilesClientCapabilities say whether the server may
// register the files the client watches.
type DidChangeWatchedFilesClientCapabilities struct {
	DynamicRegistration bool `json:"dynamicRegistration"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   ServerInfo         `json:"serverInfo"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name string `json:"name"`
}

// ServerCapabilities are the methods the server answers. The fields are in
// the order of their JSON names (see the package comment).
type ServerCapabilities struct {
	CodeActionProvider         CodeActionOptions       `json:"codeActionProvider"`
	CompletionProvider         CompletionOptions       `json:"completionProvider"`
	DefinitionProvider         bool                    `json:"definitionProvider"`
	DocumentFormattingProvider bool                    `json:"documentFormattingProvider"`
	DocumentSymbolProvider     bool                    `json:"documentSymbolProvider"`
	HoverProvider              bool                    `json:"hoverProvider"`
	ReferencesProvider         bool                    `json:"referencesProvider"`
	TextDocumentSync           TextDocumentSyncOptions `json:"textDocumentSync"`
}

// CodeActionOptions are the kinds of code actions the server offers.
type CodeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

// CompletionOptions are the characters that ask for completions.
type CompletionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters"`
}

// TextDocumentSyncKind is how the client sends a document's changes.
type TextDocumentSyncKind int

// SyncFull: the client sends the whole text on a change, or ranges of it.
const SyncFull TextDocumentSyncKind = 1

// TextDocumentSyncOptions are the document notifications the server wants.
type TextDocumentSyncOptions struct {
	Change    TextDocumentSyncKind `json:"change"`
	OpenClose bool                 `json:"openClose"`
	Save      SaveOptions          `json:"save"`
}

// SaveOptions say whether didSave carries the text.
type SaveOptions struct {
	IncludeText bool `json:"includeText"`
}

// RegistrationParams are client/registerCapability's.
type RegistrationParams struct {
	Registrations []Registration `json:"registrations"`
}

// Registration asks the client to send a method's notifications.
type Registration struct {
	ID              string                                   `json:"id"`
	Method          string                                   `json:"method"`
	RegisterOptions DidChangeWatchedFilesRegistrationOptions `json:"registerOptions"`
}

// DidChangeWatchedFilesRegistrationOptions are the files to watch.
type DidChangeWatchedFilesRegistrationOptions struct {
	Watchers []FileSystemWatcher `json:"watchers"`
}

// FileSystemWatcher is a glob pattern of files to watch.
type FileSystemWatcher struct {
	GlobPattern string `json:"globPattern"`
}

// PublishDiagnosticsParams are textDocument/publishDiagnostics': a
// document's findings. The fields are in the order of their JSON names
// (see the package comment).
type PublishDiagnosticsParams struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	URI         string       `json:"uri"`
}

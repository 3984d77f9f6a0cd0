// Suite console: a small single-page app over the /v1 API (docs/api.md, "The console's routes").
// Plain JavaScript, no framework, no build step, nothing loaded from elsewhere. This file is the entry: the router,
// sign-in and the start; the helpers are in dom.js and each page has its own file (index.html loads them first).
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, $, decodeSegment, parseRoute, api, errorBox, localError, page, state, setReady, pageHeading, live,
    renderCollections, renderCollection, renderDocument, renderQueryPage, renderUsage, renderStorage, renderGroup,
    renderAnalytics, renderWork, renderSystem,
  } = S;

  // ---------------------------------------------------------------------------------------------------------------
  // Navigation

  /// A navigation's context: whether it is still the current one.
  function newContext() {
    const token = ++state.navigation;
    return { alive: () => token === state.navigation };
  }

  function markNav(name) {
    for (const link of document.querySelectorAll("#main-nav a[data-page]")) {
      if (link.dataset.page === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
  }

  const titles = {
    documents: "Documents",
    usage: "Usage and cost",
    storage: "Storage",
    analytics: "Analytics",
    work: "Work",
    system: "System",
    signin: "Sign in",
  };

  async function route() {
    if (!state.session) return;
    const parsed = parseRoute(location.hash);
    if (!parsed) {
      history.replaceState(null, "", "/console#/documents");
      return route();
    }
    const context = newContext();
    // Focus goes to the new heading unless it is in the navigation (whose links stay).
    const active = document.activeElement;
    const moveFocus = !active || active === document.body || page.contains(active);
    page.dataset.page = parsed.page;
    setReady(false);
    markNav(parsed.page);
    document.title = `${titles[parsed.page] || "Suite"} · Suite console`;
    const liveView = parsed.page === "documents" && (parsed.view === "collection" || parsed.view === "document");
    if (!liveView) live.stop();
    live.handler = null;
    live.refreshApply = null;
    const root = h("div", { class: "page-body" });
    replace(page, root);
    try {
      switch (parsed.page) {
        case "documents":
          if (parsed.view === "collection") await renderCollection(context, root, parsed.path);
          else if (parsed.view === "document") await renderDocument(context, root, parsed.path);
          else if (parsed.view === "query") await renderQueryPage(context, root, parsed.path);
          else await renderCollections(context, root);
          break;
        case "usage":
          await renderUsage(context, root);
          break;
        case "storage":
          if (parsed.view === "group") await renderGroup(context, root, parsed.groupId);
          else await renderStorage(context, root);
          break;
        case "analytics":
          await renderAnalytics(context, root);
          break;
        case "work":
          await renderWork(context, root, parsed.uid, parsed.month);
          break;
        case "system":
          await renderSystem(context, root);
          break;
      }
    } catch (error) {
      if (context.alive()) root.append(errorBox(error));
    }
    if (!context.alive()) return;
    setReady(true);
    if (moveFocus) {
      const heading = $("page-title");
      if (heading) heading.focus({ preventScroll: true });
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Sign-in

  function showAccount() {
    const signedIn = Boolean(state.session);
    $("main-nav").hidden = !signedIn;
    $("account").hidden = !signedIn;
    $("whoami").textContent = signedIn ? (state.session.admin ? `${state.session.uid} (admin)` : state.session.uid) : "";
  }

  let sessionLostShown = false;
  function sessionLost(error) {
    if (!state.session || sessionLostShown) return;
    sessionLostShown = true;
    setTimeout(() => {
      state.session = null;
      showSignIn(error);
    }, 0);
  }

  function showSignIn(error) {
    state.navigation += 1;
    state.session = null;
    live.stop();
    showAccount();
    markNav(null);
    page.dataset.page = "signin";
    document.title = "Sign in · Suite console";
    const input = h("input", {
      id: "token-input",
      type: "password",
      name: "token",
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "token-help",
    });
    const button = h("button", { id: "signin-button", type: "submit" }, "Sign in");
    const errors = h("div", { id: "signin-error", "aria-live": "assertive" }, error ? errorBox(error) : null);
    const form = h(
      "form",
      { id: "signin-form", class: "signin-form", novalidate: true },
      h("label", { for: "token-input" }, "Bearer token or sign-in token"),
      input,
      h(
        "p",
        { id: "token-help", class: "help" },
        "Open the link `suite serve` prints, or get one with `suite users signin UID`; a bearer token from `suite users add UID` works too."
      ),
      h("div", { class: "buttons" }, button),
      errors
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = input.value.trim();
      replace(errors);
      if (!value) {
        replace(errors, errorBox(localError("invalidRequest", "Enter a token.", "Paste a bearer token or the sign-in token of a console link.")));
        input.focus();
        return;
      }
      button.disabled = true;
      page.dataset.ready = "false";
      try {
        let session;
        try {
          session = await api("POST", "/v1/session", { token: value });
        } catch (first) {
          if (first.status !== 401) throw first;
          try {
            session = await api("POST", "/v1/session", { signIn: value });
          } catch (second) {
            if (second.status !== 401) throw second;
            // Neither kind: the bearer token's answer, and the sign-in token's under it.
            first.also = second;
            throw first;
          }
        }
        input.value = "";
        signedIn(session);
      } catch (failure) {
        const box = errorBox(failure);
        if (failure.also) {
          box.append(
            h(
              "p",
              { class: "error-also" },
              `As a sign-in token: ${failure.also.message}`,
              failure.also.hint ? ` (${failure.also.hint})` : ""
            )
          );
        }
        replace(errors, box);
        button.disabled = false;
        setReady(true);
        input.focus();
      }
    });
    replace(
      page,
      h(
        "section",
        { class: "signin card", "aria-labelledby": "page-title" },
        pageHeading("Sign in", "The console keeps you signed in for 12 hours in this browser."),
        form
      )
    );
    setReady(true);
  }

  function signedIn(session) {
    state.session = { uid: String(session.uid), admin: Boolean(session.admin) };
    sessionLostShown = false;
    showAccount();
    if (!parseRoute(location.hash)) history.replaceState(null, "", "/console#/documents");
    route();
  }

  async function signOut() {
    try {
      await api("DELETE", "/v1/session");
      showSignIn(null);
    } catch (error) {
      showSignIn(error);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Start

  async function boot() {
    $("signout").addEventListener("click", signOut);
    $("skip-link").addEventListener("click", (event) => {
      event.preventDefault();
      const target = $("page-title") || page;
      target.focus();
      target.scrollIntoView({ block: "start" });
    });
    // A hash navigation marks the page not ready at once (the Navigation API's navigate event is synchronous), so
    // nobody reads the old page as the new one's until hashchange renders it.
    if (window.navigation && typeof window.navigation.addEventListener === "function") {
      window.navigation.addEventListener("navigate", (event) => {
        if (!state.session || !event.hashChange || !event.destination) return;
        if (event.destination.url !== location.href) setReady(false);
      });
    }
    window.addEventListener("hashchange", () => {
      if (location.hash.startsWith("#token=")) signInFromHash();
      else if (state.session) route();
    });

    if (location.hash.startsWith("#token=")) {
      await signInFromHash();
      return;
    }
    try {
      const session = await api("GET", "/v1/session");
      signedIn(session);
    } catch (error) {
      showSignIn(error.status === 401 ? null : error);
    }
  }

  /// A console link's `#token=…`: off the address bar at once, then redeemed.
  async function signInFromHash() {
    const token = decodeSegment(location.hash.slice("#token=".length));
    history.replaceState(null, "", "/console");
    state.navigation += 1;
    setReady(false);
    try {
      const session = await api("POST", "/v1/session", { signIn: token });
      history.replaceState(null, "", "/console#/documents");
      signedIn(session);
    } catch (error) {
      showSignIn(error);
    }
  }

  Object.assign(S, { route, sessionLost });

  let booted = false;
  function start() {
    if (booted) return;
    booted = true;
    boot();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Friends: the page (#/friends: add by name, requests either way, the list), invitations to
// tables (the page and the lobby's box), and the table page's "Invite a friend" picker.

import { api, errorText } from "./api.js";
import { go, requireLogin, session, toast } from "./shell.js";
import { gameTitle } from "./common.js";
import { button, h, mount } from "./dom.js";
import { t, tn } from "./i18n.js";
import { onChannel } from "./notify.js";
import { onPresence, presenceMark, presenceOf, showPresenceOf } from "./presence.js";

/** How many friends' presence the page watches (the user channel's `watch` takes 32 names). */
const WATCHED = 32;

const enc = encodeURIComponent;

export const friendsApi = {
  list: () => api.get("/api/friends"),
  ask: (name) => api.post(`/api/friends/${enc(name)}`),
  remove: (name) => api.del(`/api/friends/${enc(name)}`),
  invite: (tableId, name) => api.post(`/api/tables/${enc(tableId)}/invite`, { name }),
  invitations: () => api.get("/api/invitations"),
  decline: (tableId) => api.del(`/api/invitations/${enc(tableId)}`),
};

/** Registered players have friends; guests and logged-out visitors do not. */
export function mayHaveFriends() {
  return !!(session.user && !session.user.guest);
}

/** The names of the user's friends (accepted only); an empty set for a guest. */
export async function friendNames() {
  if (!mayHaveFriends()) return new Set();
  try {
    return new Set((await friendsApi.list()).filter((f) => f.state === "friend").map((f) => f.name));
  } catch {
    return new Set();
  }
}

/** The table the invitation names, as a link that carries the private table's invite. */
function tableLink(table) {
  const query = table.invite ? `?invite=${enc(table.invite)}` : "";
  return `#/table/${enc(table.id)}${query}`;
}

/** The invitations to open tables: a list with Join and Decline (empty list: nothing shown). */
export function invitationList(invitations, onChange) {
  if (!invitations.length) return null;
  return h("ul", { class: "invitations", id: "invitations" }, invitations.map((inv) =>
    h("li", { "data-invitation": inv.table.id },
      h("span", {}, t("friends.invited_by", { name: inv.from, game: gameTitle(inv.table.game) })), " ",
      button(t("friends.join"), () => go(tableLink(inv.table)), { class: "primary small", "data-accept-invitation": inv.table.id }),
      " ",
      button(t("friends.decline"), async () => {
        try {
          await friendsApi.decline(inv.table.id);
        } catch (err) {
          toast(errorText(err));
        }
        await onChange();
      }, { class: "small", "data-decline-invitation": inv.table.id }))));
}

/** News from friends on the player's own channel (js/notify.js), on whatever page: a toast
 * for a friend request, an accepted request, an invitation to a table. */
export function startFriendNews() {
  onChannel((msg) => {
    if (msg.type === "friend") {
      toast(t(msg.kind === "accepted" ? "friends.news_accepted" : "friends.news_request", { name: msg.by }), "info", 8000);
    } else if (msg.type === "invitation") {
      toast(t("friends.news_invitation", { name: msg.by, game: gameTitle(msg.game) }), "info", 8000);
    }
  });
}

/** The lobby's box of invitations: refreshed when asked (the lobby calls `refresh`) and when
 * an invitation arrives on the player's channel; `stop` when the lobby goes. */
export function invitationBox() {
  const el = h("div", { class: "card invitations-box", id: "invitations-box", hidden: true });
  async function refresh() {
    if (!mayHaveFriends()) return;
    let invitations = [];
    try {
      invitations = await friendsApi.invitations();
    } catch {
      return;
    }
    el.hidden = !invitations.length;
    mount(el, h("h2", {}, t("friends.invitations")), invitationList(invitations, refresh));
  }
  const stop = onChannel((msg) => {
    if (msg.type === "invitation") refresh();
  });
  return { el, refresh, stop };
}

/** On an open table's page, for a player seated there: invite a friend by name. */
export function invitePicker(tableId) {
  const el = h("div", { class: "invite-friend", id: "invite-friend" });
  (async () => {
    const names = [...(await friendNames())].sort((a, b) => a.localeCompare(b));
    if (!names.length) {
      mount(el, h("p", { class: "muted" }, t("friends.invite_none"), " ", h("a", { href: "#/friends" }, t("friends.page"))));
      return;
    }
    const select = h("select", { id: "invite-name", "aria-label": t("friends.invite_label") },
      names.map((n) => h("option", { value: n }, n)));
    mount(el,
      h("label", { for: "invite-name" }, t("friends.invite_label")), " ", select, " ",
      button(t("friends.invite"), async () => {
        try {
          const answer = await friendsApi.invite(tableId, select.value);
          toast(t(answer.invited ? "friends.invite_sent" : "friends.invite_again", { name: select.value }), "info");
        } catch (err) {
          toast(errorText(err));
        }
      }, { class: "small", id: "invite-send" }));
  })();
  return el;
}

export function friendsView() {
  const el = h("section", { class: "friends-page", id: "friends-page" });
  let friends = [];
  let invitations = [];

  async function load() {
    try {
      [friends, invitations] = await Promise.all([friendsApi.list(), friendsApi.invitations()]);
    } catch (err) {
      mount(el, h("p", { class: "error-page" }, errorText(err)));
      return;
    }
    // friends online first (among those watched), then by name; their presence as it changes
    const accepted = friends.filter((f) => f.state === "friend").map((f) => f.name);
    showPresenceOf(accepted.slice(0, WATCHED));
    render();
  }

  async function act(promise, done) {
    try {
      await promise;
      if (done) toast(done, "info", 3000);
    } catch (err) {
      toast(errorText(err));
    }
    await load();
  }

  function person(f, ...actions) {
    return h("li", { "data-friend": f.name, "data-state": f.state },
      h("a", { href: `#/profile/${enc(f.name)}` }, f.name), " ",
      f.state === "friend" ? presenceMark(f.name) : null, " ",
      h("span", { class: "muted" }, t(`friends.since.${f.state}`, { date: new Date(f.since).toLocaleDateString() })), " ",
      ...actions);
  }

  // the form is made once: a redraw (a presence change) keeps what is being typed
  let formCard = null;
  function addForm() {
    if (formCard) return formCard;
    const input = h("input", { id: "friend-name", name: "friend", maxlength: 40, autocomplete: "off", required: true });
    const form = h("form", { class: "add-friend", id: "add-friend" },
      h("label", { for: "friend-name" }, t("friends.add_label")), " ", input, " ",
      h("button", { type: "submit", class: "primary small", id: "friend-add" }, t("friends.add")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (name) act(friendsApi.ask(name), t("friends.asked", { name }));
    });
    formCard = h("div", { class: "card" }, form);
    return formCard;
  }

  function render() {
    const of = (state) => friends.filter((f) => f.state === state);
    const incoming = of("incoming");
    const rank = (f) => ({ online: 0, away: 1 }[(presenceOf(f.name) || {}).state] ?? 2);
    const accepted = of("friend").sort((a, b) => rank(a) - rank(b));
    const outgoing = of("outgoing");
    mount(el,
      h("h1", {}, t("friends.title")),
      addForm(),
      invitations.length ? h("div", { class: "card" }, h("h2", {}, t("friends.invitations")), invitationList(invitations, load)) : null,
      incoming.length ? h("div", { class: "card", id: "friend-requests" },
        h("h2", {}, t("friends.incoming")),
        h("ul", {}, incoming.map((f) => person(f,
          button(t("friends.accept"), () => act(friendsApi.ask(f.name)), { class: "primary small", "data-accept": f.name }), " ",
          button(t("friends.decline"), () => act(friendsApi.remove(f.name)), { class: "small", "data-decline": f.name }))))) : null,
      h("div", { class: "card", id: "friend-list" },
        h("h2", {}, tn("friends.count", accepted.length)),
        accepted.length
          ? h("ul", {}, accepted.map((f) => person(f,
            button(t("friends.remove"), () => {
              if (window.confirm(t("friends.remove_confirm", { name: f.name }))) return act(friendsApi.remove(f.name));
              return null;
            }, { class: "link small", "data-remove": f.name }))))
          : h("p", { class: "muted" }, t("friends.none"))),
      outgoing.length ? h("div", { class: "card", id: "friend-sent" },
        h("h2", {}, t("friends.outgoing")),
        h("ul", {}, outgoing.map((f) => person(f,
          button(t("friends.withdraw"), () => act(friendsApi.remove(f.name)), { class: "small", "data-withdraw": f.name }))))) : null);
  }

  let stop = null;
  let stopPresence = null;
  return {
    el,
    unmount() {
      if (stop) stop();
      if (stopPresence) stopPresence();
    },
    async mounted() {
      if (!requireLogin()) return;
      stop = onChannel((msg) => {
        if (msg.type === "friend" || msg.type === "invitation") load();
      });
      stopPresence = onPresence(() => { if (friends.length) render(); });
      if (!mayHaveFriends()) {
        mount(el, h("h1", {}, t("friends.title")), h("p", {}, t("error.guest_friends")));
        return;
      }
      await load();
    },
    relabel: () => {
      formCard = null;
      render();
    },
  };
}

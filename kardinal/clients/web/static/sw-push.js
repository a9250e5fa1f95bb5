// The service worker's push messages (imported by sw.js with importScripts): the "push"
// handler that shows a notification and the "notificationclick" handler that opens the
// game at the player's seat belong here. Empty until Web Push is built (issue 46, item 2).

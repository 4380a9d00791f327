// register-sw.js: registers the site's service worker (sw.js), which keeps every file of
// this build so that the site opens again with no network.  Loaded by index.html as
// <script type="module" src="register-sw.js">: the CSP allows no inline script.
// Service workers need a secure context (https, or http://localhost).
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("sw.js").catch((error) => {
    console.warn(`the service worker did not register: ${error}`);
  });
}

window.themeLoaded = true;

import ArgumentParser
import WebAppLaunchServer
print("x")
